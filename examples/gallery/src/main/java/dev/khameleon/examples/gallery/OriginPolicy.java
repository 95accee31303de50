package dev.khameleon.examples.gallery;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which pages may use the gallery. By default only its own: a WebSocket upgrade is accepted when
 * its {@code Host} names the loopback address ({@code 127.0.0.1}, {@code localhost} or
 * {@code [::1]}) and its {@code Origin}, if present, is the gallery page's own origin
 * ({@code http://<loopback name>:<page port>}). So a page of another site open in the same
 * browser cannot talk to the gallery, and neither can one reached through a DNS name rebound to
 * 127.0.0.1 (its {@code Host} names that name). Requests without {@code Origin} come from programs,
 * not from pages, and are accepted (the Java client sends none).
 *
 * <p>More origins can be allowed (e.g. a reverse proxy's {@code https://gallery.example.org});
 * their host names are then accepted in {@code Host} too. The single entry {@code *} accepts any
 * origin and any host. Immutable and thread-safe.
 */
final class OriginPolicy implements LinkEmulator.RequestGate {
    private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "[::1]");

    private final boolean any;
    private final Set<String> origins = new HashSet<>();
    private final Set<String> hosts = new HashSet<>(LOOPBACK_NAMES);

    /**
     * The policy of a gallery whose page listens on {@code pagePort}.
     *
     * @param extraOrigins more allowed origins, each {@code scheme://host[:port]}, or the single
     *     entry {@code *} for any
     * @throws IllegalArgumentException naming an entry that is not an http(s) origin
     */
    OriginPolicy(int pagePort, List<String> extraOrigins) {
        this.any = extraOrigins.contains("*");
        for (String name : LOOPBACK_NAMES) {
            origins.add("http://" + name + ":" + pagePort);
        }
        if (any) {
            if (extraOrigins.size() != 1) {
                throw new IllegalArgumentException("allowed origin * accepts any origin and must be the only entry, were "
                        + extraOrigins);
            }
            return;
        }
        for (String origin : extraOrigins) {
            URI uri = parseOrigin(origin);
            if (uri == null) {
                throw new IllegalArgumentException("allowed origin must look like http://host[:port] or"
                        + " https://host[:port] (or be *), was " + origin);
            }
            origins.add(normalise(uri));
            hosts.add(uri.getHost().toLowerCase(Locale.ROOT));
        }
    }

    /**
     * Why a request with these header values is refused, or null if it is accepted.
     *
     * @param host   the {@code Host} header, null if absent
     * @param origin the {@code Origin} header, null if absent
     */
    String refusal(String host, String origin) {
        String hostRefusal = hostRefusal(host);
        if (hostRefusal != null || origin == null || any) {
            return hostRefusal;
        }
        URI uri = parseOrigin(origin);
        if (uri == null || !origins.contains(normalise(uri))) {
            return "origin " + origin + " is not allowed (the gallery accepts its own page; see --allowed-origin)";
        }
        return null;
    }

    /** Why a request with this {@code Host} header (null if absent) is refused, or null if accepted. */
    String hostRefusal(String host) {
        if (any) {
            return null;
        }
        if (host == null || host.isBlank()) {
            return "no Host header";
        }
        String h = host.trim().toLowerCase(Locale.ROOT);
        String name = h.startsWith("[") ? h.substring(0, h.indexOf(']') + 1)
                : h.indexOf(':') >= 0 ? h.substring(0, h.indexOf(':')) : h;
        return hosts.contains(name) ? null : "host " + host + " is not allowed (see --allowed-origin)";
    }

    /** Reads {@code Host} and {@code Origin} from a request head; two of either is refused. */
    @Override
    public String refusal(List<String> head) {
        String host = null;
        String origin = null;
        int hosts = 0;
        int originCount = 0;
        for (String line : head.subList(Math.min(1, head.size()), head.size())) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Host")) {
                host = value;
                hosts++;
            } else if (name.equalsIgnoreCase("Origin")) {
                origin = value;
                originCount++;
            }
        }
        if (hosts > 1 || originCount > 1) {
            return "more than one Host or Origin header";
        }
        return refusal(host, origin);
    }

    /** {@code origin} as a URI if it is {@code http(s)://host[:port]} with nothing more, else null. */
    private static URI parseOrigin(String origin) {
        try {
            URI uri = new URI(origin);
            String scheme = uri.getScheme();
            boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty()) && uri.getRawQuery() == null
                    && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
            if (scheme == null || uri.getHost() == null || !bare
                    || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
                return null;
            }
            return uri;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** {@code scheme://host:port} in lower case with the scheme's default port written out. */
    private static String normalise(URI uri) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }
}
