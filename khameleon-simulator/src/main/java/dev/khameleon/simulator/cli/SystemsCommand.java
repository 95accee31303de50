package dev.khameleon.simulator.cli;

import dev.khameleon.simulator.SystemRegistry;
import dev.khameleon.simulator.SystemSpec;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code khameleon-simulator systems}: every system {@code --systems} takes, with its group and what it is. */
@Command(name = "systems", mixinStandardHelpOptions = true,
        description = "List every system simulate, experiment and live can run: name, group, description.")
public final class SystemsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        int width = 0;
        for (SystemSpec s : SystemRegistry.all()) {
            width = Math.max(width, s.name().length());
        }
        for (SystemSpec s : SystemRegistry.all()) {
            out.printf("%-" + width + "s  %-8s  %s%n", s.name(), s.group().label(), s.description());
        }
        out.flush();
        return 0;
    }
}
