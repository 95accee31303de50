package dev.khameleon.loadtest.proxy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The documented HAProxy configuration, rendered for one loopback node. */
class HaproxyConfigTest {
    private static final Path DOC = Path.of("..", "docs", "scale-out.md");

    @Test
    void render_ofTheDocumentedBlock_bindsLoopbackAndKeepsOnlyTheFirstNode() {
        String documented = HaproxyConfig.documented(DOC);
        String cfg = HaproxyConfig.render(documented, 18080, 19090);

        assertTrue(cfg.contains("    bind 127.0.0.1:18080\n"), cfg);
        assertFalse(cfg.contains("bind :80"), cfg);
        assertEquals(1, cfg.lines().filter(l -> l.trim().startsWith("server ")).count(), cfg);
        assertTrue(cfg.contains("    server node1 127.0.0.1:19090\n"), cfg);
        assertFalse(cfg.contains("10.0.0."), "no documented address is left: " + cfg);
        // Everything else is the documented text, line for line.
        String expected = documented.replace("    bind :80\n", "    bind 127.0.0.1:18080\n")
                .replace("10.0.0.11:8080", "127.0.0.1:19090")
                .replace("    server node2 10.0.0.12:8080\n", "")
                .replace("    server node3 10.0.0.13:8080\n", "");
        assertEquals(expected, cfg);
    }

    @Test
    void render_keepsTheServerLinesOptions() {
        String cfg = HaproxyConfig.render("frontend f\n    bind :80\nbackend b\n    server a 10.1.1.1:80 check weight 3\n"
                + "    server b 10.1.1.2:80 check\n", 1000, 2000);

        assertEquals("frontend f\n    bind 127.0.0.1:1000\nbackend b\n    server a 127.0.0.1:2000 check weight 3\n", cfg);
    }

    @Test
    void render_refusesABlockWithoutBindOrServer_andBadPorts() {
        assertThrows(IllegalArgumentException.class, () -> HaproxyConfig.render("backend b\n    server a 1.2.3.4:80\n", 1, 2));
        assertThrows(IllegalArgumentException.class, () -> HaproxyConfig.render("frontend f\n    bind :80\n", 1, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HaproxyConfig.render("frontend f\n    bind :80\n    server a 1.2.3.4:80\n", 0, 2));
        assertTrue(e.getMessage().contains("listen port 0"), e.getMessage());
    }

    @Test
    void documented_namesAMissingFileOrBlock(@TempDir Path dir) throws Exception {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> HaproxyConfig.documented(dir.resolve("none.md")));
        assertTrue(missing.getMessage().contains("none.md") && missing.getMessage().contains("not found"),
                missing.getMessage());

        Path empty = Files.writeString(dir.resolve("empty.md"), "# no configuration\n```nginx\nx\n```\n");
        IllegalArgumentException noBlock = assertThrows(IllegalArgumentException.class,
                () -> HaproxyConfig.documented(empty));
        assertTrue(noBlock.getMessage().contains("no ```haproxy block"), noBlock.getMessage());
    }

    @Test
    void render_listsOneServerPerNode_namedAsDocumentedThenByNumber_withTheFirstLinesOptions() {
        String doc = "frontend f\n    bind :80\n    default_backend b\nbackend b\n    balance leastconn\n"
                + "    server node1 10.0.0.11:8080\n    server node2 10.0.0.12:8080 weight 2\n";
        String cfg = HaproxyConfig.render(doc, 7000, List.of(7001, 7002, 7003));
        assertEquals("frontend f\n    bind 127.0.0.1:7000\n    default_backend b\nbackend b\n    balance leastconn\n"
                + "    server node1 127.0.0.1:7001\n    server node2 127.0.0.1:7002\n    server node3 127.0.0.1:7003\n",
                cfg);
        assertThrows(IllegalArgumentException.class, () -> HaproxyConfig.render("backend b\n", 1, List.of(2)));
        assertThrows(IllegalArgumentException.class, () -> HaproxyConfig.render(doc, 1, List.of()));
    }
}
