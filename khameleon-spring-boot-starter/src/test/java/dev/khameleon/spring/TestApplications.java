package dev.khameleon.spring;

import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage.ErrorMessage;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Small in-memory applications whose blocks a test can recompute. */
final class TestApplications {
    static final int BLOCK_SIZE = 256;
    static final int BLOCKS = 3;
    static final int REQUESTS = 8;

    private TestApplications() {
    }

    /** The payload of block {@code index} of request {@code request}: distinct for every block. */
    static byte[] payload(int request, int index) {
        byte[] p = new byte[BLOCK_SIZE];
        for (int i = 0; i < p.length; i++) {
            p[i] = (byte) (request * 31 + index * 7 + i);
        }
        return p;
    }

    /** An application called {@code name} at {@code /name} serving {@link #blocks()}. */
    static Application named(String name) {
        return Application.builder(name).blockSource(blocks()).build();
    }

    /** {@link #REQUESTS} responses of {@link #BLOCKS} blocks of {@link #payload}s each. */
    static BlockSource blocks() {
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < REQUESTS; r++) {
            List<Block> blocks = new ArrayList<>();
            for (int b = 0; b < BLOCKS; b++) {
                blocks.add(Block.wrap(r, b, BLOCKS, payload(r, b), 0));
            }
            responses.add(blocks);
        }
        return BlockSource.inMemory(BLOCK_SIZE, responses);
    }

    /**
     * Requests {@code request} from a connected client and asserts that its complete response has
     * exactly the blocks of {@link #blocks()}, in order.
     */
    static void assertServesExactBlocks(KhameleonClient<?> client, int request) throws Exception {
        CompletableFuture<Response> complete = new CompletableFuture<>();
        client.request(request, response -> {
            if (response.isComplete()) {
                complete.complete(response);
            }
        });
        Response full = complete.get(30, TimeUnit.SECONDS);
        assertEquals(request, full.requestId());
        assertEquals(BLOCKS, full.blocks().size());
        for (int i = 0; i < BLOCKS; i++) {
            Block b = full.blocks().get(i);
            assertEquals(i, b.index());
            ByteBuffer content = b.content();
            byte[] bytes = new byte[content.remaining()];
            content.get(bytes);
            assertArrayEquals(payload(request, i), bytes, "block " + i);
        }
    }

    /** A client listener that records the server's error code and the close status. */
    static final class ShutdownRecorder implements ClientListener {
        final CompletableFuture<String> serverError = new CompletableFuture<>();
        final CompletableFuture<Integer> disconnected = new CompletableFuture<>();

        @Override
        public void onServerError(ErrorMessage error) {
            serverError.complete(error.code());
        }

        @Override
        public void onDisconnected(int status, String reason, boolean willReconnect) {
            disconnected.complete(status);
        }

        /** Asserts that the session ended with the error {@code shutdown} and status 1001. */
        void assertShutdown() throws Exception {
            assertEquals("shutdown", serverError.get(10, TimeUnit.SECONDS));
            assertEquals(1001, disconnected.get(10, TimeUnit.SECONDS));
        }
    }
}
