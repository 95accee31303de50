package dev.khameleon.simulator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Puts the command-line flag in place of a setting's Java name in a validation message. Library
 * types ({@code SimConfig.Builder}, {@code KalmanPredictor.Builder}) name their settings as Java
 * does ({@code bandwidthMBps must be finite and > 0}); a command re-words such a message with the
 * flag its user typed ({@code --bandwidth-MBps must be finite and > 0}) rather than the library
 * knowing about flags.
 */
public final class FlagNames {
    private FlagNames() {
    }

    /**
     * {@code e} re-worded if its message starts with one of {@code flags}' keys (a Java name, as a
     * whole word): the key replaced by its flag; otherwise {@code e} itself.
     */
    public static IllegalArgumentException reword(IllegalArgumentException e, Map<String, String> flags) {
        String m = e.getMessage();
        if (m == null) {
            return e;
        }
        // The longest name first: "tail weight" before "tail".
        List<Map.Entry<String, String>> byLength = new ArrayList<>(flags.entrySet());
        byLength.sort(Comparator.comparingInt((Map.Entry<String, String> f) -> f.getKey().length()).reversed());
        for (Map.Entry<String, String> f : byLength) {
            String name = f.getKey();
            if (m.startsWith(name) && (m.length() == name.length()
                    || !Character.isJavaIdentifierPart(m.charAt(name.length())))) {
                return new IllegalArgumentException(f.getValue() + m.substring(name.length()), e);
            }
        }
        return e;
    }

    /**
     * The name of the option {@code name} (any of its names) that the user typed in the command
     * {@code spec} parsed, or {@code name} if it cannot tell (no parse, option not given).
     */
    public static String typed(CommandSpec spec, String name) {
        if (spec == null || spec.commandLine() == null) {
            return name;
        }
        OptionSpec option = spec.findOption(name);
        ParseResult parsed = spec.commandLine().getParseResult();
        if (option == null || parsed == null) {
            return name;
        }
        return ParseErrors.typedName(option, parsed.originalArgs().toArray(String[]::new));
    }
}
