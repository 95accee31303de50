package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.testing.TestClient;
import io.netty.handler.ssl.SslContextBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code wss://} with a server-side {@code SslContext}: handshake, welcome and blocks over TLS. */
class ServerTlsTest {
    private static final char[] PASSWORD = "changeit".toCharArray();

    /** A self-signed certificate for 127.0.0.1, made with the JDK's keytool. */
    private static KeyStore selfSigned(Path dir) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        assumeTrue(Files.isExecutable(keytool), "keytool not found at " + keytool + "; TLS test skipped");
        Path store = dir.resolve("server.p12");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit",
                "-ext", "SAN=ip:127.0.0.1")
                .redirectErrorStream(true).start();
        p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        assumeTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool failed; TLS test skipped");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD);
        }
        return ks;
    }

    @Test
    void wss_servesSessionsOverTls(@TempDir Path dir) throws Exception {
        KeyStore ks = selfSigned(dir);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, tmf.getTrustManagers(), null);

        try (KhameleonServer server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(5)
                .sslContext(SslContextBuilder.forServer(kmf).build())
                .fixedBytesPerSecond(1e6)
                .application(Application.builder("tls").blockSource(TestApps.inMemory(10, 2, 256)).build())
                .build().start()) {
            URI uri = URI.create("wss://127.0.0.1:" + server.port() + "/tls");
            HttpClient http = HttpClient.newBuilder().sslContext(clientTls).build();
            try (TestClient c = TestClient.connectAsync(http, uri, Map.of()).orTimeout(10, TimeUnit.SECONDS).join()) {
                c.send(ControlMessage.Hello.of("tls", 20));
                assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
                assertEquals(0, c.nextBlock().frame().seq());
                assertEquals(1, c.nextBlock().frame().seq());
            }
        }
    }
}
