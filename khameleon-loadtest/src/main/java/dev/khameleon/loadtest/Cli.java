package dev.khameleon.loadtest;

import dev.khameleon.loadtest.fleet.FleetCommand;
import dev.khameleon.loadtest.server.ProxyOverhead;
import dev.khameleon.loadtest.server.ServerLoad;
import dev.khameleon.loadtest.server.Soak;
import dev.khameleon.loadtest.store.StoreBench;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The load-test tool's command line: {@code java -jar khameleon-loadtest/target/khameleon-loadtest.jar <command>}.
 * Every command runs real servers (in this JVM, or HAProxy, Redis and server nodes as processes) on
 * 127.0.0.1 and prints Markdown tables; a new command is a picocli class listed in {@code subcommands}.
 * Bad input is reported as the simulator's command line reports it (see
 * {@link dev.khameleon.simulator.tool.Cli#run}): one line naming the option, exit status 2.
 */
@Command(name = "khameleon-loadtest", mixinStandardHelpOptions = true, version = "khameleon-loadtest 0.1.0",
        description = "Load tests of the Khameleon server over loopback.",
        subcommands = {Soak.class, ServerLoad.class, ProxyOverhead.class, FleetCommand.class, StoreBench.class,
                dev.khameleon.loadtest.memory.FootprintCommand.class,
                CommandLine.HelpCommand.class})
public final class Cli implements Runnable {

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** A new command line for every command. */
    public static CommandLine commandLine() {
        return dev.khameleon.simulator.tool.Cli.toolCommandLine(new Cli());
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
