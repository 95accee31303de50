package dev.khameleon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.testing.TestClient;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The kernel's unsent bytes per connection are bounded ({@code TCP_NOTSENT_LOWAT}), so blocks
 * planned for old states cannot pile up in a send buffer the server cannot retract.
 */
class NotSentLowWaterTest {
    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Long optionOnTheSessionsConnection(KhameleonServer.Builder b) {
        Assumptions.assumeTrue(Epoll.isAvailable(), "TCP_NOTSENT_LOWAT needs the epoll transport, unavailable here: "
                + Epoll.unavailabilityCause());
        Application app = Application.builder("test").blockSource(TestApps.inMemory(10, 2, 100))
                .predictor(ServerPredictor.point(10, 50, 150, 250, 500)).build();
        server = b.host("127.0.0.1").port(0).transport(KhameleonServer.Transport.EPOLL).application(app).build()
                .start();
        try (TestClient c = TestClient.connect(URI.create("ws://127.0.0.1:" + server.port() + "/test"))) {
            c.send(ControlMessage.Hello.of("test", 10));
            assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
            Session s = server.runtime().sessions().get(0);
            return s.channel().config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT);
        }
    }

    @Test
    void byDefault_eachConnectionHoldsAtMost16KiBUnsent() {
        assertEquals(16 * 1024L, optionOnTheSessionsConnection(KhameleonServer.builder()));
    }

    @Test
    void theSetting_isWhatTheConnectionGets() {
        assertEquals(4096L, optionOnTheSessionsConnection(KhameleonServer.builder().notSentLowWaterBytes(4096)));
    }

    @Test
    void aValueOutOfRange_isRefusedWithItsName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KhameleonServer.builder().notSentLowWaterBytes(-1));
        assertEquals(true, e.getMessage().startsWith("notSentLowWaterBytes"), e.getMessage());
    }
}
