package io.jccl.tools;

import io.jccl.Configuration;

/** The {@code [--shm-dir DIR]} option of info and clean, as a configuration. */
final class ShmDirOption
{
    private ShmDirOption()
    {
    }

    static Configuration parse(final String[] args)
    {
        final Arguments arguments = new Arguments(args);
        Configuration configuration = Configuration.fromEnvironment();
        String option;
        while ((option = arguments.nextOption()) != null)
        {
            if ("--shm-dir".equals(option))
            {
                configuration = configuration.with(Configuration.SHM_DIR_PROP_NAME, arguments.value(option));
            }
            else
            {
                throw Arguments.unknownOption(option);
            }
        }
        arguments.expectNoOperands();
        return configuration;
    }
}
