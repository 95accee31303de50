package dev.khameleon.bench.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HAProxy configuration documented in {@code docs/scale-out.md}, rendered for one node on loopback.
 * The documented block is used as it stands, so the measured proxy is the documented one: only its
 * listening address and its first node's address change, and the other nodes are left out.
 */
final class HaproxyConfig {
    private static final Pattern BLOCK = Pattern.compile("```haproxy\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern SERVER = Pattern.compile("^(\\s*server\\s+\\S+\\s+)(\\S+)(.*)$");

    private HaproxyConfig() {
    }

    /**
     * The first {@code ```haproxy} block of the Markdown file {@code doc}.
     *
     * @throws IllegalArgumentException if the file is missing or has no such block
     */
    static String documented(Path doc) {
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

    /**
     * {@code documented} with its {@code bind :80} listening on {@code 127.0.0.1:listenPort}, its first
     * {@code server} line pointing at {@code 127.0.0.1:nodePort} (keeping that line's options) and every
     * later {@code server} line removed.
     *
     * @throws IllegalArgumentException if the block has no {@code bind :80} or no {@code server} line
     */
    static String render(String documented, int listenPort, int nodePort) {
        checkPort("listen port", listenPort);
        checkPort("node port", nodePort);
        if (!documented.contains("    bind :80\n")) {
            throw new IllegalArgumentException("the documented haproxy block has no 'bind :80' line");
        }
        StringBuilder out = new StringBuilder();
        boolean serverSeen = false;
        for (String line : documented.replace("    bind :80\n", "    bind 127.0.0.1:" + listenPort + "\n")
                .split("\n", -1)) {
            Matcher m = SERVER.matcher(line);
            if (m.matches()) {
                if (serverSeen) {
                    continue;
                }
                serverSeen = true;
                line = m.group(1) + "127.0.0.1:" + nodePort + m.group(3);
            }
            out.append(line).append('\n');
        }
        if (!serverSeen) {
            throw new IllegalArgumentException("the documented haproxy block has no 'server' line");
        }
        return out.substring(0, out.length() - 1);
    }

    private static void checkPort(String what, int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException(what + " " + port + " is outside [1, 65535]");
        }
    }
}
