package dev.khameleon.server;

/**
 * Makes text that a client controls (paths, origins, application names, error details quoting
 * its input) safe to put in a log line: control and line-separator characters become {@code ?}
 * so that no one can forge log lines, and the text is cut to {@value #MAX_CHARS} characters.
 */
final class LogText {
    /** The longest text kept, in characters; longer text ends with {@code "…"}. */
    static final int MAX_CHARS = 200;

    private LogText() {
    }

    /**
     * {@code value} (its {@code String.valueOf}) with control, format (e.g. bidirectional
     * overrides) and line-separator characters replaced by {@code ?}, cut to {@link #MAX_CHARS}.
     */
    static String clean(Object value) {
        String s = String.valueOf(value);
        int n = Math.min(s.length(), MAX_CHARS);
        StringBuilder out = new StringBuilder(n + 1);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            out.append(isUnsafe(c) ? '?' : c);
        }
        if (s.length() > MAX_CHARS) {
            out.append('…');
        }
        return out.toString();
    }

    private static boolean isUnsafe(char c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || type == Character.FORMAT;
    }
}
