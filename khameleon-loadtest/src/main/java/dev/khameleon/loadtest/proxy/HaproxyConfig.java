package dev.khameleon.loadtest.proxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HAProxy configuration documented in {@code docs/scale-out.md}, rendered for nodes on loopback.
 * The documented block is used as it stands, so the measured proxy is the documented one: only its
 * listening address and its {@code server} lines change.
 */
public final class HaproxyConfig {
    private static final Pattern BLOCK = Pattern.compile("```haproxy\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern SERVER = Pattern.compile("^(\\s*server\\s+)(\\S+)\\s+\\S+(.*)$");

    private HaproxyConfig() {
    }

    /**
     * The first {@code ```haproxy} block of the Markdown file {@code doc}.
     *
     * @throws IllegalArgumentException if the file is missing or has no such block
     */
    public static String documented(Path doc) {
        String text;
        try {
            text = Files.readString(doc);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--config-doc: " + doc.toAbsolutePath().normalize()
                    + " not found (run from the repository root or pass the path of docs/scale-out.md)");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + doc, e);
        }
        Matcher m = BLOCK.matcher(text);
        if (!m.find()) {
            throw new IllegalArgumentException("--config-doc: " + doc + " has no ```haproxy block");
        }
        return m.group(1);
    }

    /** {@link #render(String, int, List)} for one node. */
    public static String render(String documented, int listenPort, int nodePort) {
        return render(documented, listenPort, List.of(nodePort));
    }

    /**
     * {@code documented} with its {@code bind :80} listening on {@code 127.0.0.1:listenPort} and its
     * {@code server} lines replaced, where the first one stood, by one line per node port: node {@code k}
     * keeps the name of the {@code k}-th documented line ({@code node<k>} past the last) and every line
     * takes the first documented line's options.
     *
     * @throws IllegalArgumentException if the block has no {@code bind :80} or no {@code server} line,
     *     no node port is given, or a port is outside {@code [1, 65535]}
     */
    public static String render(String documented, int listenPort, List<Integer> nodePorts) {
        checkPort("listen port", listenPort);
        if (nodePorts.isEmpty()) {
            throw new IllegalArgumentException("no node to balance");
        }
        for (int p : nodePorts) {
            checkPort("node port", p);
        }
        if (!documented.contains("    bind :80\n")) {
            throw new IllegalArgumentException("the documented haproxy block has no 'bind :80' line");
        }
        String[] lines = documented.replace("    bind :80\n", "    bind 127.0.0.1:" + listenPort + "\n").split("\n", -1);
        List<String> names = new ArrayList<>();
        for (String line : lines) {
            Matcher m = SERVER.matcher(line);
            if (m.matches()) {
                names.add(m.group(2));
            }
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("the documented haproxy block has no 'server' line");
        }
        StringBuilder out = new StringBuilder();
        boolean written = false;
        for (String line : lines) {
            Matcher m = SERVER.matcher(line);
            if (!m.matches()) {
                out.append(line).append('\n');
            } else if (!written) {
                written = true;
                for (int k = 0; k < nodePorts.size(); k++) {
                    String name = k < names.size() ? names.get(k) : "node" + (k + 1);
                    out.append(m.group(1)).append(name).append(" 127.0.0.1:").append(nodePorts.get(k))
                            .append(m.group(3)).append('\n');
                }
            }
        }
        return out.substring(0, out.length() - 1);
    }

    private static void checkPort(String what, int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException(what + " " + port + " is outside [1, 65535]");
        }
    }
}
