package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.testkit.DocSnippets;
import dev.khameleon.core.testkit.ServerPredictorContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Predictor halves written against the state's JSON text ({@code fromJsonText}): what text the
 * server half sees, what the client half's text becomes, and the errors of each.
 */
class JsonTextPredictorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long[] HORIZONS = {50, 150, 250, 500};
    private static final int N = 100;

    /** The example of docs/spi-guide.md, "States as JSON text": both halves without a JSON library. */
    static final class LastHover {
        // tag::json-text[]
        static final Pattern REQUEST = Pattern.compile("\\{\"request\":(\\d{1,9})}");

        static ServerPredictor serverHalf(int n, long... horizons) {
            return ServerPredictor.fromJsonText(json -> {   // the state as compact JSON text
                Matcher m = REQUEST.matcher(json);          // or Gson, JSON-P, org.json, …
                if (!m.matches() || Integer.parseInt(m.group(1)) >= n) {
                    throw new IllegalArgumentException("state must be {\"request\": id} with id < " + n
                            + ", was " + json);
                }
                return Distribution.point(n, Integer.parseInt(m.group(1)), horizons);
            });
        }

        static ClientPredictor<Integer> clientHalf() {
            int[] last = {0};
            return ClientPredictor.fromJsonText(hovered -> last[0] = hovered,
                    nowMillis -> "{\"request\": " + last[0] + "}");
        }
        // end::json-text[]
    }

    @Test
    void serverHalf_seesTheStateAsCompactJsonText_inTheOrderSent() throws IOException {
        AtomicReference<String> seen = new AtomicReference<>();
        Distribution uniform = Distribution.uniform(N, HORIZONS);
        ServerPredictor p = ServerPredictor.fromJsonText(text -> {
            seen.set(text);
            return uniform;
        });
        assertSame(uniform, p.decode(JSON.readTree("{ \"z\" : [1, 2.5, \"é\\n\"],\n \"a\": {\"b\": null} }")));
        assertEquals("{\"z\":[1,2.5,\"é\\n\"],\"a\":{\"b\":null}}", seen.get());
        p.decode(null);
        assertEquals("null", seen.get(), "a missing state is the text null");
    }

    @Test
    void serverHalf_passesTheDecodersRejectionOn_andRefusesANullDistribution() throws IOException {
        ServerPredictor rejecting = ServerPredictor.fromJsonText(text -> {
            throw new IllegalArgumentException("bad state " + text);
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> rejecting.decode(JSON.readTree("{\"x\":1}")));
        assertEquals("bad state {\"x\":1}", e.getMessage());
        ServerPredictor broken = ServerPredictor.fromJsonText(text -> null);
        IllegalStateException n = assertThrows(IllegalStateException.class, () -> broken.decode(JSON.readTree("1")));
        assertTrue(n.getMessage().contains("returned null"), n.getMessage());
        assertThrows(NullPointerException.class, () -> ServerPredictor.fromJsonText(null));
    }

    @Test
    void clientHalf_parsesItsText_andNamesTextThatIsNotOneJsonDocument() {
        ClientPredictor<Integer> hover = LastHover.clientHalf();
        hover.onEvent(42);
        assertEquals(JSON.createObjectNode().put("request", 42), hover.state(0));
        for (String bad : new String[] {"{\"request\": ", "{} {}", "", null}) {
            ClientPredictor<Integer> broken = ClientPredictor.fromJsonText(e -> { }, now -> bad);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> broken.state(0), "for " + bad);
            assertTrue(e.getMessage().contains("client predictor"), e.getMessage());
        }
    }

    @Test
    void bothHalves_roundTripThroughTheWireForm() {
        ClientPredictor<Integer> client = LastHover.clientHalf();
        ServerPredictor server = LastHover.serverHalf(N, HORIZONS);
        client.onEvent(7);
        JsonNode state = client.state(0);
        Distribution d = server.decode(state);
        assertEquals(1.0, d.probability(0, 7), 1e-12);
    }

    /** The example's server half passes the contract kit. */
    @Nested
    class ExampleServerHalfContract extends ServerPredictorContract {
        @Override
        protected ServerPredictor predictor() {
            return LastHover.serverHalf(N, HORIZONS);
        }

        @Override
        protected int requestCount() {
            return N;
        }

        @Override
        protected List<JsonNode> validStates() {
            return List.of(JSON.createObjectNode().put("request", 0), JSON.createObjectNode().put("request", N - 1));
        }

        @Override
        protected List<JsonNode> invalidStates() {
            return List.of(JSON.createObjectNode().put("request", N), JSON.createObjectNode().put("request", -1),
                    JSON.createObjectNode().put("request", "7"), JSON.createArrayNode(),
                    JSON.createObjectNode().put("request", 99_999_999_999L));
        }
    }

    @Test
    void spiGuide_quotesTheExampleVerbatim() throws IOException {
        Map<String, String> regions = DocSnippets.regions(DocSnippets.read(
                "khameleon-core/src/test/java/dev/khameleon/core/spi/JsonTextPredictorTest.java"));
        assertEquals(1, regions.size(), "examples found: " + regions.keySet());
        assertTrue(DocSnippets.read("docs/spi-guide.md").contains(regions.get("json-text")),
                "docs/spi-guide.md does not quote 'json-text' as compiled:\n" + regions.get("json-text"));
    }
}
