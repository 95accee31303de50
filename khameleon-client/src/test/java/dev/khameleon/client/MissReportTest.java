package dev.khameleon.client;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.testing.ScriptedServer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A request event tells the server whether the client's cache missed, so that a miss is fetched first. */
class MissReportTest {
    private static final int BLOCK_SIZE = 100;

    @Test
    void aRequestEventSaysMissOnlyWhenTheCacheHadNoBlock() throws Exception {
        ScriptedServer.Script script = (n, ch) -> {
            ScriptedServer.sendText(ch, ScriptedServer.welcome(16, 0, BLOCK_SIZE));
            ScriptedServer.sendBlock(ch, 0, Block.wrap(1, 0, 1, new byte[BLOCK_SIZE], 0));
        };
        try (ScriptedServer server = new ScriptedServer(script);
             KhameleonClient<?> client = KhameleonClient.builder().uri(server.uri()).application("app")
                     .cacheBlocks(16).build()) {
            CompletableFuture<Response> arrived = new CompletableFuture<>();
            client.request(1, arrived::complete);
            client.connect().get(10, TimeUnit.SECONDS);
            arrived.get(10, TimeUnit.SECONDS);
            assertTrue(client.request(1, r -> { }), "request 1 is cached now");
            assertFalse(client.request(2, r -> { }), "request 2 was never sent");
            // The request made before connecting was not reported: there was no session to tell.
            ControlMessage.RequestEvent hit = nextRequestEvent(server, 1);
            assertFalse(hit.miss(), "a hit is not a miss: " + hit);
            ControlMessage.RequestEvent miss = nextRequestEvent(server, 2);
            assertTrue(miss.miss(), "a miss says so: " + miss);
        }
    }

    /** The next request event for {@code requestId} the server received, passing over other messages. */
    private static ControlMessage.RequestEvent nextRequestEvent(ScriptedServer server, int requestId)
            throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < giveUp) {
            ControlMessage m = server.received.poll(1, TimeUnit.SECONDS);
            if (m instanceof ControlMessage.RequestEvent r && r.requestId() == requestId) {
                return r;
            }
        }
        return fail("no request event for " + requestId + " reached the server");
    }
}
