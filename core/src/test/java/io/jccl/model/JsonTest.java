package io.jccl.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class JsonTest
{
    @Test
    void parsesWhatItWrites()
    {
        final Map<String, Object> value = new LinkedHashMap<>();
        value.put("name", "a \"quoted\" \\ name\n");
        value.put("count", 3L);
        value.put("rate", 1.25e-4);
        value.put("flag", true);
        value.put("none", null);
        value.put("list", List.of(1L, 2.5, "x"));
        value.put("nested", List.of(Map.of("k", 1L)));
        final Object parsed = Json.parse(Json.write(value));
        final Map<?, ?> map = (Map<?, ?>)parsed;
        assertEquals("a \"quoted\" \\ name\n", map.get("name"));
        assertEquals(3.0, map.get("count"));
        assertEquals(1.25e-4, (Double)map.get("rate"), 1e-12);
        assertEquals(true, map.get("flag"));
        assertTrue(map.containsKey("none") && map.get("none") == null);
        assertEquals(List.of(1.0, 2.5, "x"), map.get("list"));
        assertEquals(List.of(Map.of("k", 1.0)), map.get("nested"));
    }

    @Test
    void writesReadableNumbers()
    {
        assertEquals("[3, 0.125, 1.23457E-7, 12345.7]", Json.write(List.of(3.0, 0.125, 1.234567e-7, 12345.678)));
    }

    @Test
    void rejectsBadText()
    {
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\": }"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1, 2"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{} x"));
        assertEquals("\u00b5", Json.parse("\"\\u00b5\""));
    }
}
