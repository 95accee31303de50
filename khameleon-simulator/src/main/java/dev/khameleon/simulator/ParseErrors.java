package dev.khameleon.simulator;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Reports a command-line parse error in at most five lines instead of the whole usage: one line
 * naming what the user typed ({@code khameleon-simulator simulate: --bandwidth-MBps abc: not a number}),
 * up to three lines with the options it concerns (for an unknown option the closest option names,
 * for a bad or missing value that option's own line) and a last line pointing at {@code --help}.
 * The exit status is the command's status for invalid input, 2.
 *
 * <p>Install it with {@link CommandLine#setParameterExceptionHandler}; {@link Cli#commandLine()}
 * does.
 */
public final class ParseErrors implements CommandLine.IParameterExceptionHandler {
    /** Options or commands shown at most under the error. */
    static final int MAX_RELATED = 3;
    /** A related option's line is cut at this many characters. */
    static final int WIDTH = 100;

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        CommandSpec spec = cmd.getCommandSpec();
        List<String> related = new ArrayList<>();
        String message = message(ex, args == null ? new String[0] : args, related);
        PrintWriter err = cmd.getErr();
        err.println(spec.qualifiedName() + ": " + message);
        related.stream().limit(MAX_RELATED).forEach(err::println);
        boolean commands = spec.subcommands().keySet().stream().anyMatch(n -> !"help".equals(n));
        err.println("Run '" + spec.qualifiedName() + " --help' for all " + (commands ? "commands" : "options") + ".");
        err.flush();
        return spec.exitCodeOnInvalidInput();
    }

    /** The error line after the command's name; adds the lines of the options it concerns to {@code related}. */
    private static String message(ParameterException ex, String[] args, List<String> related) {
        CommandLine cmd = ex.getCommandLine();
        CommandSpec spec = cmd.getCommandSpec();
        // picocli checks required options before unmatched arguments: a mistyped option then shows
        // as "missing required option", hiding the mistake. The unknown argument comes first here.
        List<String> unmatched = ex instanceof UnmatchedArgumentException u ? u.getUnmatched()
                : cmd.getUnmatchedArguments();
        if (!unmatched.isEmpty()) {
            return unmatched(spec, new UnmatchedArgumentException(cmd, unmatched), unmatched.get(0), related);
        }
        ArgSpec arg = ex instanceof OverwrittenOptionException o ? o.getOverwritten() : ex.getArgSpec();
        if (ex instanceof MissingParameterException missing && arg == null && missing.getMissing().size() == 1
                && typed(missing.getMissing().get(0), args)) {
            arg = missing.getMissing().get(0); // typed as the last argument, without its value
        }
        if (ex instanceof MissingParameterException missing && (arg == null || !typed(arg, args))) {
            List<String> names = new ArrayList<>();
            for (ArgSpec a : missing.getMissing()) {
                names.add(a instanceof OptionSpec o ? o.longestName() : a.paramLabel());
                if (a instanceof OptionSpec o) {
                    related.add(line(o));
                }
            }
            if (!names.isEmpty()) {
                return "missing " + (names.size() == 1 ? "" : "options ") + String.join(", ", names);
            }
            return firstLine(ex.getMessage());
        }
        if (arg instanceof OptionSpec o) {
            String flag = typedName(o, args);
            related.add(line(o));
            if (ex instanceof MissingParameterException) {
                return flag + ": needs a value";
            }
            if (ex instanceof OverwrittenOptionException) {
                return flag + ": given more than once";
            }
            String value = ex.getValue();
            Throwable cause = ex.getCause();
            if (value != null && cause != null) {
                return flag + " " + value + ": " + badValue(o, cause);
            }
            return firstLine(ex.getMessage());
        }
        if (arg != null && ex.getValue() != null && ex.getCause() != null) {
            return arg.paramLabel() + " " + ex.getValue() + ": " + badValue(arg, ex.getCause());
        }
        return firstLine(ex.getMessage());
    }

    private static String unmatched(CommandSpec spec, UnmatchedArgumentException u, String first,
            List<String> related) {
        if (first.length() > 1 && first.startsWith("-") && !Character.isDigit(first.charAt(1))) {
            String name = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
            Set<OptionSpec> close = new LinkedHashSet<>();
            List<OptionSpec> candidates = new ArrayList<>();
            for (String s : u.getSuggestions()) {
                OptionSpec o = spec.findOption(s);
                if (o != null) {
                    candidates.add(o);
                }
            }
            for (OptionSpec o : spec.options()) {
                if (!o.hidden() && close(name, o)) {
                    candidates.add(o);
                }
            }
            candidates.stream().sorted(Comparator.comparingInt(o -> distance(name, o))).forEach(close::add);
            close.stream().limit(MAX_RELATED).forEach(o -> related.add(line(o)));
            return name + ": unknown option";
        }
        if (spec.subcommands().isEmpty()) {
            return first + ": unexpected argument";
        }
        for (String s : u.getSuggestions()) {
            CommandLine sub = spec.subcommands().get(s);
            if (sub != null) {
                String[] d = sub.getCommandSpec().usageMessage().description();
                related.add(cut(String.format(Locale.ROOT, "  %-11s %s", s, d.length == 0 ? "" : d[0])));
            }
        }
        return first + ": unknown command";
    }

    /** Why {@code cause} refused a value of {@code arg}, in the user's terms. */
    private static String badValue(ArgSpec arg, Throwable cause) {
        Class<?> type = arg.typeInfo().getType();
        if (arg.typeInfo().isMultiValue() && !arg.typeInfo().getAuxiliaryTypes()[0].equals(type)) {
            type = arg.typeInfo().getAuxiliaryTypes()[0];
        }
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            return "not a number";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class
                || type == short.class || type == Short.class) {
            return "not a whole number";
        }
        if (type.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object c : type.getEnumConstants()) {
                names.add(c.toString().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            return "expected one of " + String.join(", ", names);
        }
        String m = cause instanceof TypeConversionException ? cause.getMessage() : cause.toString();
        return m == null ? cause.getClass().getSimpleName() : firstLine(m);
    }

    /** Whether one of {@code arg}'s names is among {@code args}. */
    private static boolean typed(ArgSpec arg, String[] args) {
        return arg instanceof OptionSpec o && typedIndex(o, args) >= 0;
    }

    /** The name of {@code o} the user typed last (its longest name if none is found). */
    static String typedName(OptionSpec o, String[] args) {
        int i = typedIndex(o, args);
        if (i < 0) {
            return o.longestName();
        }
        String a = args[i];
        return a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
    }

    private static int typedIndex(OptionSpec o, String[] args) {
        for (int i = args.length - 1; i >= 0; i--) {
            for (String n : o.names()) {
                if (args[i].equals(n) || args[i].startsWith(n + "=")) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The option's names, parameter and the start of its description, on one line. */
    static String line(OptionSpec o) {
        String names = String.join(", ", o.names());
        String param = o.typeInfo().isBoolean() ? "" : "=" + label(o);
        String description = String.join(" ", o.description());
        String dv = o.defaultValueString();
        description = description.replace("${DEFAULT-VALUE}", dv == null ? "" : dv);
        return cut(String.format(Locale.ROOT, "  %s%s  %s", names, param, description).stripTrailing());
    }

    /**
     * The option's parameter label, or for picocli's default label (the Java field's name in angle
     * brackets, {@code <bandwidthMBps>}) what the value is: {@code <number>}, {@code <integer>},
     * {@code <path>}, {@code <a|b|c>} for an enum, {@code <text>}; with {@code [,...]} for a list.
     */
    static String label(OptionSpec o) {
        String label = o.paramLabel();
        if (!label.matches("<[A-Za-z_$][A-Za-z0-9_$]*>")) {
            return label;
        }
        Class<?> type = o.typeInfo().isMultiValue() ? o.typeInfo().getAuxiliaryTypes()[0] : o.typeInfo().getType();
        String value;
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            value = "<number>";
        } else if (type == int.class || type == Integer.class || type == long.class || type == Long.class
                || type == short.class || type == Short.class) {
            value = "<integer>";
        } else if (type == java.nio.file.Path.class || type == java.io.File.class) {
            value = "<path>";
        } else if (type.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object c : type.getEnumConstants()) {
                names.add(c.toString().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            value = "<" + String.join("|", names) + ">";
        } else {
            value = "<text>";
        }
        return o.splitRegex().isEmpty() ? value : value + "[,...]";
    }

    private static String cut(String s) {
        if (s.length() <= WIDTH) {
            return s;
        }
        int space = s.lastIndexOf(' ', WIDTH - 4);
        return s.substring(0, space > WIDTH / 2 ? space : WIDTH - 4) + " ...";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "invalid arguments";
        }
        String line = s.strip().lines().findFirst().orElse("");
        return line.isEmpty() ? "invalid arguments" : line;
    }

    /** Whether an option of {@code o}'s is near {@code typed}: few edits apart, or one's words in the other. */
    private static boolean close(String typed, OptionSpec o) {
        String t = strip(typed);
        for (String n : o.names()) {
            String s = strip(n);
            if (t.length() >= 4 && s.length() >= 4 && (s.contains(t) || t.contains(s))) {
                return true;
            }
            if (levenshtein(t, s) <= Math.max(2, t.length() / 4)) {
                return true;
            }
        }
        return false;
    }

    private static int distance(String typed, OptionSpec o) {
        int best = Integer.MAX_VALUE;
        for (String n : o.names()) {
            best = Math.min(best, levenshtein(strip(typed), strip(n)));
        }
        return best;
    }

    private static String strip(String name) {
        int i = 0;
        while (i < name.length() && name.charAt(i) == '-') {
            i++;
        }
        return name.substring(i).toLowerCase(Locale.ROOT);
    }

    static int levenshtein(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
