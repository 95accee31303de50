package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OriginPolicyTest {
    private final OriginPolicy own = new OriginPolicy(8080, List.of());

    @Test
    void acceptsTheGallerysOwnPageOnEveryLoopbackName() {
        assertNull(own.refusal("127.0.0.1:9001", "http://127.0.0.1:8080"));
        assertNull(own.refusal("localhost:9001", "http://LOCALHOST:8080"));
        assertNull(own.refusal("[::1]:9001", "http://[::1]:8080"));
        assertNull(own.refusal("127.0.0.1:9001", null), "programs send no Origin");
    }

    @Test
    void refusesOtherOriginsAndHostNames() {
        assertTrue(own.refusal("127.0.0.1:9001", "http://evil.example").startsWith("origin http://evil.example"));
        assertTrue(own.refusal("127.0.0.1:9001", "http://127.0.0.1:8081").contains("not allowed"), "another port");
        assertTrue(own.refusal("127.0.0.1:9001", "https://127.0.0.1:8080").contains("not allowed"), "another scheme");
        assertTrue(own.refusal("127.0.0.1:9001", "null").contains("not allowed"));
        assertEquals("host rebound.example:9001 is not allowed (see --allowed-origin)",
                own.refusal("rebound.example:9001", null), "a DNS name rebound to 127.0.0.1");
        assertEquals("no Host header", own.refusal(null, "http://127.0.0.1:8080"));
    }

    @Test
    void readsHostAndOriginFromARequestHeadCaseInsensitively() {
        assertNull(own.refusal(List.of("GET /gallery HTTP/1.1", "host: 127.0.0.1:9001", "ORIGIN: http://localhost:8080")));
        assertTrue(own.refusal(List.of("GET /gallery HTTP/1.1", "Host: 127.0.0.1:9001", "Origin: http://x.example"))
                .contains("x.example"));
        assertEquals("more than one Host or Origin header", own.refusal(List.of("GET / HTTP/1.1",
                "Host: 127.0.0.1", "Origin: http://127.0.0.1:8080", "Origin: http://x.example")));
    }

    @Test
    void moreOriginsCanBeAllowedOrAny() {
        OriginPolicy proxied = new OriginPolicy(8080, List.of("https://Gallery.Example.org"));
        assertNull(proxied.refusal("gallery.example.org", "https://gallery.example.org:443"));
        assertNull(proxied.refusal("127.0.0.1:9001", "http://127.0.0.1:8080"), "its own page still");
        assertTrue(proxied.refusal("other.example", null).contains("not allowed"));

        OriginPolicy any = new OriginPolicy(8080, List.of("*"));
        assertNull(any.refusal("anything.example", "http://elsewhere.example"));
    }

    @Test
    void rejectsEntriesThatAreNotOrigins() {
        for (String bad : List.of("gallery.example.org", "ftp://x.example", "http://x.example/path", "http://")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new OriginPolicy(8080, List.of(bad)), bad);
            assertTrue(e.getMessage().endsWith("was " + bad), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new OriginPolicy(8080, List.of("*", "http://x.example")));
    }
}
