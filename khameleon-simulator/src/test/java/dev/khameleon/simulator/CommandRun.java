package dev.khameleon.simulator;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One run of a tool's command line in a test: its exit status and what it printed on standard
 * output and standard error. The load-test tool's tests use it too (through this module's test jar).
 *
 * @param status the exit status
 * @param out    what the run printed on standard output
 * @param err    what it printed on standard error
 */
public record CommandRun(int status, String out, String err) {
    /** Runs {@code cli} with {@code args}, capturing its two streams. */
    public static CommandRun of(CommandLine cli, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        int status = cli.execute(args);
        return new CommandRun(status, out.toString(), err.toString());
    }

    /** Runs {@code cli} with {@code command} followed by {@code args}. */
    public static CommandRun ofCommand(CommandLine cli, String command, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        return of(cli, all);
    }

    /** As the tests compare them: {status, stdout, stderr}. */
    public String[] asArray() {
        return new String[] {Integer.toString(status), out, err};
    }
}
