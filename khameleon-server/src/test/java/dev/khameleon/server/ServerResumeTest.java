package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ManifestRun;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ResumeRequest;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Session resume over loopback: a client's session moves to another node sharing the resume key
 * and continues its ring; every refused resume gives a working fresh session, never an error.
 */
@Timeout(60)
class ServerResumeTest {
    private static final int N = 50;
    private static final int BLOCKS = 4;
    private static final int C = 40;
    private static final byte[] KEY = ResumeTokensTest.key(7);

    private final List<KhameleonServer> servers = new ArrayList<>();
    private final List<TestClient> clients = new ArrayList<>();
    private final AtomicLong wallClock = new AtomicLong(1_700_000_000_000L);

    @AfterEach
    void stop() {
        clients.forEach(TestClient::close);
        servers.forEach(KhameleonServer::close);
    }

    private KhameleonServer start(byte[] key) {
        Application app = Application.builder("test").blockSource(TestApps.inMemory(N, BLOCKS, 256)).build();
        KhameleonServer.Builder b = KhameleonServer.builder().host("127.0.0.1").port(0).seed(servers.size() + 1)
                .fixedBytesPerSecond(50_000).resumeTtl(Duration.ofMinutes(1)).resumeClock(wallClock::get)
                .application(app);
        if (key != null) {
            b.resumeKey(key);
        }
        KhameleonServer s = b.build().start();
        servers.add(s);
        return s;
    }

    private static URI uri(KhameleonServer s) {
        return URI.create("ws://127.0.0.1:" + s.port() + "/test");
    }

    private TestClient connect(KhameleonServer s) {
        TestClient c = TestClient.connect(uri(s));
        clients.add(c);
        return c;
    }

    private static ControlMessage.Hello hello(int cacheBlocks, ResumeRequest resume) {
        return new ControlMessage.Hello(Protocol.VERSION, "test", cacheBlocks, Optional.empty(),
                List.of(Protocol.FEATURE_RESUME), Optional.ofNullable(resume));
    }

    private static ControlMessage.Welcome welcome(TestClient c) {
        return assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
    }

    /** A fresh session's resume token. */
    private String token(KhameleonServer s, int cacheBlocks) {
        TestClient c = connect(s);
        c.send(hello(cacheBlocks, null));
        ControlMessage.Welcome w = welcome(c);
        assertTrue(w.supports(Protocol.FEATURE_RESUME));
        assertEquals(Optional.empty(), w.resumed(), "no resume asked, none answered");
        return w.resumeToken().orElseThrow();
    }

    /** The runs of consecutive frames' (request, block) in {@code ring}. */
    private static List<ManifestRun> manifest(List<TestClient.Received> ring) {
        List<ManifestRun> runs = new ArrayList<>();
        for (TestClient.Received r : ring) {
            int id = r.frame().block().requestId();
            int index = r.frame().block().index();
            ManifestRun last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (last != null && last.requestId() == id && last.firstBlock() + last.count() == index) {
                runs.set(runs.size() - 1, new ManifestRun(id, last.firstBlock(), last.count() + 1));
            } else {
                runs.add(new ManifestRun(id, index, 1));
            }
        }
        return runs;
    }

    private static long key(TestClient.Received r) {
        return ((long) r.frame().block().requestId() << 32) | r.frame().block().index();
    }

    @Test
    void resume_onAnotherNodeWithTheSameKey_continuesTheRing_withoutRepeatingABlockOfTheBatch() {
        KhameleonServer a = start(KEY);
        KhameleonServer b = start(KEY);
        TestClient onA = connect(a);
        onA.send(hello(C, null));
        String token = welcome(onA).resumeToken().orElseThrow();
        List<TestClient.Received> received = new ArrayList<>();
        while (received.size() < C + 15) {
            received.add(onA.nextBlock());
        }
        a.close(); // node A goes away mid-session
        onA.awaitClose();
        onA.blocks.drainTo(received);
        for (int k = 0; k < received.size(); k++) {
            assertEquals(k, received.get(k).frame().seq(), "A's frames in order, no gaps");
        }
        long nextSeq = received.size();
        List<TestClient.Received> ring = received.subList((int) Math.max(0, nextSeq - C), (int) nextSeq);

        TestClient onB = connect(b);
        onB.send(hello(C, new ResumeRequest(token, nextSeq, manifest(ring), 0)));
        ControlMessage.Welcome w = welcome(onB);
        assertTrue(w.isResumed(), "resumed: " + w);
        assertEquals(nextSeq, w.firstSeq());
        assertTrue(w.resumeToken().isPresent(), "a token for the resumed session");
        long batchStart = nextSeq / C * C;
        Set<Long> batch = new HashSet<>();
        for (long s = batchStart; s < nextSeq; s++) {
            batch.add(key(received.get((int) s)));
        }
        TestClient.Received first = onB.nextBlock();
        assertEquals(nextSeq, first.frame().seq(), "B's first frame continues the ring");
        TestClient.Received r = first;
        for (long s = nextSeq; s < batchStart + C; s++) {
            if (s > nextSeq) {
                r = onB.nextBlock();
            }
            assertEquals(s, r.frame().seq());
            assertTrue(batch.add(key(r)), "request " + r.frame().block().requestId() + " block "
                    + r.frame().block().index() + " at " + s + " is already in this batch of the ring");
        }
        assertEquals(1, b.metrics().sessionsResumed());
        assertEquals(0, b.metrics().resumesRefused());
    }

    @Test
    void resume_withTheManifestInParts_isTheSameAsInOne() {
        KhameleonServer s = start(KEY);
        String token = token(s, C);
        // 3 slots at sequence number 3, one run per message: blocks 0, 1, 2 of request 5.
        TestClient c = connect(s);
        c.send(hello(C, new ResumeRequest(token, 3, List.of(new ManifestRun(5, 0, 1)), 2)));
        c.send(new ControlMessage.ResumePart(List.of(new ManifestRun(5, 1, 1))));
        c.send(new ControlMessage.ResumePart(List.of(new ManifestRun(5, 2, 1))));
        ControlMessage.Welcome w = welcome(c);
        assertTrue(w.isResumed(), w.toString());
        assertEquals(3, c.nextBlock().frame().seq());
    }

    /** Sends a resume, expects a fresh session with {@code refusal}, and that it works. */
    private void assertRefused(KhameleonServer s, ControlMessage.Hello h, String refusal,
                               ControlMessage... after) {
        TestClient c = connect(s);
        c.send(h);
        for (ControlMessage m : after) {
            c.send(m);
        }
        ControlMessage.Welcome w = welcome(c);
        assertEquals(Optional.of(false), w.resumed(), w.toString());
        assertEquals(Optional.of(refusal), w.resumeRefused());
        assertEquals(0, w.firstSeq(), "a fresh session starts at 0");
        assertTrue(w.resumeToken().isPresent(), "and can itself be resumed later");
        assertEquals(0, c.nextBlock().frame().seq(), "the fresh session pushes");
        assertEquals(1, c.nextBlock().frame().seq());
        assertFalse(c.closed.isDone(), "no error, no close");
    }

    @Test
    void resume_refused_givesAFreshSession_forEveryReason() {
        KhameleonServer s = start(KEY);
        String token = token(s, C);
        String otherKeyToken = token(start(ResumeTokensTest.key(8)), C);
        List<ManifestRun> none = List.of();
        assertRefused(s, hello(C, new ResumeRequest("AAAAAAAA", 0, none, 0)), ResumeTokens.INVALID_TOKEN);
        assertRefused(s, hello(C, new ResumeRequest(otherKeyToken, 0, none, 0)), ResumeTokens.INVALID_TOKEN);
        assertRefused(s, hello(C - 1, new ResumeRequest(token, 0, none, 0)), ResumeTokens.GEOMETRY);
        assertRefused(s, hello(C, new ResumeRequest(token, 0, none, C + 1)), ResumeAssembly.MANIFEST_TOO_LARGE);
        assertRefused(s, hello(C, new ResumeRequest(token, 100, List.of(new ManifestRun(1, 0, 1),
                new ManifestRun(-1, 0, C)), 0)), ResumeAssembly.MANIFEST_TOO_LARGE);
        assertRefused(s, hello(C, new ResumeRequest(token, 1, List.of(new ManifestRun(N, 0, 1)), 0)),
                ResumeAssembly.UNKNOWN_REQUEST);
        assertRefused(s, hello(C, new ResumeRequest(token, 5, List.of(new ManifestRun(1, 0, 3)), 0)),
                ResumeAssembly.MANIFEST_INCONSISTENT);
        // Plausible to every cheap check, but no scheduler plans block 1 of a request before its block 0 in a batch.
        assertRefused(s, hello(C, new ResumeRequest(token, 1, List.of(new ManifestRun(3, 1, 1)), 0)),
                ResumeAssembly.MANIFEST_INCONSISTENT);
        assertRefused(s, hello(C, new ResumeRequest(token, 2, List.of(new ManifestRun(3, BLOCKS - 1, 2)), 0)),
                ResumeAssembly.MANIFEST_INCONSISTENT);
        // Sequence numbers must stay exact in a JavaScript number for the ring's next C frames.
        assertRefused(s, hello(C, new ResumeRequest(token, ResumeRequest.MAX_NEXT_SEQ,
                List.of(new ManifestRun(ManifestRun.EMPTY, 0, C)), 0)), ResumeAssembly.MANIFEST_INCONSISTENT);
        assertRefused(s, hello(C, new ResumeRequest(token, ResumeRequest.MAX_NEXT_SEQ - C + 1,
                List.of(new ManifestRun(ManifestRun.EMPTY, 0, C)), 0)), ResumeAssembly.MANIFEST_INCONSISTENT);
        // Refused before its parts came: the parts that follow are ignored.
        assertRefused(s, hello(C, new ResumeRequest("AAAAAAAA", 2, none, 1)), ResumeTokens.INVALID_TOKEN,
                new ControlMessage.ResumePart(List.of(new ManifestRun(1, 0, 2))));
        wallClock.addAndGet(Duration.ofMinutes(1).toMillis() + 1);
        assertRefused(s, hello(C, new ResumeRequest(token, 0, none, 0)), ResumeTokens.EXPIRED);
        assertEquals(13, s.metrics().resumesRefused());
        assertEquals(0, s.metrics().sessionsResumed());
        assertEquals(Long.valueOf(0), s.metrics().errorsByCode().getOrDefault("invalid_message", 0L));
    }

    /** Regression: one token resumed several connections at once, each with the same ring. */
    @Test
    void resumeToken_resumesOneOpenSessionAtATime() throws InterruptedException {
        KhameleonServer s = start(KEY);
        String token = token(s, C);
        TestClient first = connect(s);
        first.send(hello(C, new ResumeRequest(token, 0, List.of(), 0)));
        assertTrue(welcome(first).isResumed());
        assertRefused(s, hello(C, new ResumeRequest(token, 0, List.of(), 0)), ResumeTokens.IN_USE);
        first.close();
        // Once the server has seen the first connection close, the token is free again.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            TestClient again = connect(s);
            again.send(hello(C, new ResumeRequest(token, 0, List.of(), 0)));
            ControlMessage.Welcome w = welcome(again);
            if (w.isResumed()) {
                break;
            }
            assertEquals(Optional.of(ResumeTokens.IN_USE), w.resumeRefused());
            again.close();
            assertTrue(System.nanoTime() < deadline, "the token stayed claimed after its session closed");
            Thread.sleep(20);
        }
    }

    @Test
    void resume_withoutAKeySetting_worksOnTheSameProcessOnly() {
        KhameleonServer a = start(null);
        KhameleonServer b = start(null);
        String token = token(a, C);
        TestClient same = connect(a);
        same.send(hello(C, new ResumeRequest(token, 0, List.of(), 0)));
        assertTrue(welcome(same).isResumed());
        assertRefused(b, hello(C, new ResumeRequest(token, 0, List.of(), 0)), ResumeTokens.INVALID_TOKEN);
    }

    @Test
    void stateSentRightAfterTheResumingHello_waitsForTheWelcome_andIsPlanned() {
        KhameleonServer s = start(KEY);
        String token = token(s, C);
        TestClient c = connect(s);
        c.send(hello(C, new ResumeRequest(token, 2, List.of(new ManifestRun(7, 0, 2)), 0)));
        c.sendState(1, "{\"request\":7}"); // before the welcome: the server may still be seeding
        assertTrue(welcome(c).isResumed());
        assertEquals(2, c.nextBlock().frame().seq(), "no error, and the ring continues");
        assertFalse(c.closed.isDone());
    }

    @Test
    void resumeToken_isRefreshedEveryHalfTimeToLive_forClientsThatAskForIt() {
        Application app = Application.builder("test").blockSource(TestApps.inMemory(N, BLOCKS, 256)).build();
        KhameleonServer s = KhameleonServer.builder().host("127.0.0.1").port(0).seed(9).fixedBytesPerSecond(5_000)
                .resumeKey(KEY).resumeTtl(Duration.ofSeconds(1)).resumeClock(wallClock::get).application(app)
                .build().start();
        servers.add(s);
        TestClient asks = connect(s);
        asks.send(hello(C, null));
        String first = welcome(asks).resumeToken().orElseThrow();
        wallClock.addAndGet(700); // the first token is 0.7 s old when the refresh comes, half a second in
        ControlMessage.ResumeToken fresh = assertInstanceOf(ControlMessage.ResumeToken.class, asks.nextControl());
        assertFalse(fresh.token().equals(first), "a new token");
        wallClock.addAndGet(500); // the first has expired now; the refreshed one has not
        assertRefused(s, hello(C, new ResumeRequest(first, 0, List.of(), 0)), ResumeTokens.EXPIRED);
        TestClient again = connect(s);
        again.send(hello(C, new ResumeRequest(fresh.token(), 0, List.of(), 0)));
        assertTrue(welcome(again).isResumed());

        TestClient old = connect(s);
        old.send(ControlMessage.Hello.of("test", C)); // a client without the feature
        assertTrue(welcome(old).resumeToken().isPresent(), "offered, in a field old clients ignore");
        old.nextBlock();
        try {
            Thread.sleep(1_200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertTrue(old.control.isEmpty(), "no resumeToken message to a client that did not ask: " + old.control);
    }

    @Test
    void resumeParts_due_anyOtherMessageIsInvalid() {
        KhameleonServer s = start(KEY);
        String token = token(s, C);
        TestClient c = connect(s);
        c.send(hello(C, new ResumeRequest(token, 2, List.of(new ManifestRun(1, 0, 1)), 1)));
        c.sendState(1, "{\"request\":1}");
        ControlMessage.ErrorMessage e = c.awaitError();
        assertEquals("invalid_message", e.code(), "a state while the manifest's parts are due: " + e.message());
    }
}
