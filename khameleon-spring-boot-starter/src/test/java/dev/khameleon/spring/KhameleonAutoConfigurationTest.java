package dev.khameleon.spring;

import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When the auto-configuration defines, starts and stops a server, and when it stays out of the way. */
class KhameleonAutoConfigurationTest {
    /** Port 0 throughout: a fixed port could be taken by another build on this machine. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KhameleonAutoConfiguration.class))
            .withPropertyValues("khameleon.port=0");
    /** A servlet web application context without a web server, as in a mock-environment test. */
    private final WebApplicationContextRunner mockWebRunner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KhameleonAutoConfiguration.class))
            .withUserConfiguration(OneApplication.class);

    @Configuration(proxyBeanMethods = false)
    static class OneApplication {
        @Bean
        Application gallery() {
            return TestApplications.named("gallery");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoApplications {
        @Bean
        @Order(2)
        Application second() {
            return TestApplications.named("second");
        }

        @Bean
        @Order(1)
        Application first() {
            return TestApplications.named("first");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SamePathTwice {
        @Bean
        Application one() {
            return TestApplications.named("same");
        }

        @Bean
        Application other() {
            return TestApplications.named("same");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserServer {
        @Bean
        KhameleonServer myServer(Application gallery) {
            return KhameleonServer.builder().port(0).application(gallery).build();
        }
    }

    @Test
    void autoConfiguration_isListedInAutoConfigurationImports() {
        List<String> candidates = ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
                .getCandidates();
        assertTrue(candidates.contains(KhameleonAutoConfiguration.class.getName()), candidates.toString());
    }

    @Test
    void noApplicationBean_definesNoServer() {
        runner.run(context -> {
            assertNull(context.getStartupFailure());
            assertTrue(context.getBeansOfType(KhameleonServer.class).isEmpty());
            assertTrue(context.getBeansOfType(KhameleonProperties.class).isEmpty());
        });
    }

    @Test
    void applicationBeans_areServedInOrderByAStartedServer() {
        runner.withUserConfiguration(TwoApplications.class).run(context -> {
            KhameleonServer server = context.getBean(KhameleonServer.class);
            assertEquals(List.of("first", "second"), server.applications().stream().map(Application::name).toList());
            assertTrue(server.port() > 0, "listening on the port picked for port 0");
            assertEquals("127.0.0.1", server.localAddress().getAddress().getHostAddress());
            assertTrue(context.getBean(ServerLifecycle.class).isRunning());
        });
    }

    @Test
    void contextClose_closesTheServer() {
        KhameleonServer[] server = new KhameleonServer[1];
        runner.withUserConfiguration(OneApplication.class).run(context -> server[0] = context.getBean(KhameleonServer.class));
        IllegalStateException e = assertThrows(IllegalStateException.class, server[0]::start);
        assertEquals("the server was already closed", e.getMessage());
    }

    @Test
    void embeddedMode_withoutAServletWebApplication_failsStartupNamingTheProperty() {
        assertStartupFails("khameleon.mode=embedded", "khameleon.mode: embedded needs a servlet web application");
    }

    @Test
    void autoMode_inAMockServletEnvironment_servesOnItsOwnPort() {
        // As in a @SpringBootTest without a web server: no WebSocket container to mount on.
        mockWebRunner.withPropertyValues("khameleon.port=0")
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertTrue(context.getBean(KhameleonServer.class).port() > 0);
                    assertFalse(context.getBean(WebServerMount.class).mount());
                });
    }

    @Test
    void withoutServletOrWebSocketApi_theServerStartsOnItsOwnPort() {
        // The starter declares these APIs provided: an application without a servlet web server lacks them.
        runner.withClassLoader(new FilteredClassLoader("jakarta.servlet", "jakarta.websocket", "org.springframework.web"))
                .withUserConfiguration(OneApplication.class)
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertTrue(context.getBean(KhameleonServer.class).port() > 0);
                });
    }

    @Test
    void autoMode_inAReactiveWebApplication_servesOnItsOwnPort() {
        // WebFlux on Reactor Netty has no Jakarta WebSocket container.
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KhameleonAutoConfiguration.class))
                .withUserConfiguration(OneApplication.class)
                .withPropertyValues("khameleon.port=0")
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertTrue(context.getBeansOfType(WebServerMount.class).isEmpty());
                    assertTrue(context.getBean(KhameleonServer.class).port() > 0);
                });
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KhameleonAutoConfiguration.class))
                .withUserConfiguration(OneApplication.class)
                .withPropertyValues("khameleon.mode=embedded")
                .run(context -> assertTrue(String.valueOf(context.getStartupFailure())
                        .contains("khameleon.mode: embedded needs a servlet web application"), "fails naming the property"));
    }

    @Test
    void embeddedMode_inAMockServletEnvironment_failsStartupSayingWhy() {
        mockWebRunner.withPropertyValues("khameleon.mode=embedded")
                .run(context -> {
                    Throwable failure = context.getStartupFailure();
                    assertTrue(failure != null, "no container to mount on");
                    assertTrue(String.valueOf(failure.getMessage()).contains(
                            "khameleon.mode=embedded, but the web server has no Jakarta WebSocket container"),
                            failure.toString());
                });
    }

    @Test
    void ownPortMode_inAServletEnvironment_definesNoWebServerBeans() {
        mockWebRunner.withPropertyValues("khameleon.mode=OWN_PORT", "khameleon.port=0")
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertTrue(context.getBeansOfType(WebServerMount.class).isEmpty());
                    assertTrue(context.getBeansOfType(HealthzServlet.class).isEmpty());
                    assertFalse(context.containsBean("khameleonHealthzServlet"));
                    assertTrue(context.getBean(KhameleonServer.class).port() > 0);
                });
    }

    @Test
    void properties_haveTheDocumentedDefaults() {
        KhameleonProperties p = new KhameleonProperties();
        assertEquals(KhameleonProperties.Mode.AUTO, p.getMode());
        assertTrue(p.isHealthz());
        assertEquals("127.0.0.1", p.getHost());
        assertEquals(8090, p.getPort());
        assertEquals(10_000, p.getMaxSessions());
        assertEquals(List.of(), p.getAllowedOrigins());
        assertFalse(p.isAllowAnyOrigin());
        assertEquals(64, p.getMaxConnectionsPerAddress());
        assertEquals(16, p.getMaxHandshakesPerAddress());
        assertEquals(Duration.ofSeconds(10), p.getHandshakeTimeout());
        assertEquals(Duration.ofSeconds(5), p.getHelloTimeout());
        assertEquals(Duration.ofSeconds(60), p.getReadIdleTimeout());
        assertEquals(Duration.ofSeconds(30), p.getWriteStallTimeout());
        assertEquals(Duration.ofSeconds(2), p.getCloseTimeout());
        assertEquals(Duration.ofSeconds(5), p.getShutdownTimeout());
        assertEquals(65_536, p.getMaxFramePayloadBytes());
        assertEquals(16, p.getMaxPingsPerSecond());
        assertEquals(1 << 20, p.getMaxInboundBytesPerSecond());
        assertEquals(16_384, p.getMaxCacheBlocks());
        assertEquals(2_097_152L, p.getMaxTotalCacheBlocks());
        assertEquals(Duration.ofMillis(10), p.getStateInterval());
        assertNull(p.getMaxBytesPerSecond());
        assertNull(p.getResumeKey());
        assertEquals(Duration.ofMinutes(10), p.getResumeTtl());
    }

    @Test
    void properties_areBoundFromKebabCaseNames() {
        runner.withUserConfiguration(OneApplication.class)
                .withPropertyValues("khameleon.max-sessions=7", "khameleon.allowed-origins=https://a.example,https://b.example",
                        "khameleon.allow-any-origin=true", "khameleon.allowed-hosts=app.example,localhost",
                        "khameleon.state-interval=50ms",
                        "khameleon.hello-timeout=2s", "khameleon.max-total-cache-blocks=100000",
                        "khameleon.max-bytes-per-second=250000", "khameleon.max-inbound-bytes-per-second=65536",
                        "khameleon.resume-key=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "khameleon.resume-ttl=30m")
                .run(context -> {
                    KhameleonProperties p = context.getBean(KhameleonProperties.class);
                    assertEquals(7, p.getMaxSessions());
                    assertEquals(List.of("https://a.example", "https://b.example"), p.getAllowedOrigins());
                    assertTrue(p.isAllowAnyOrigin());
                    assertEquals(List.of("app.example", "localhost"), p.getAllowedHosts());
                    assertEquals(Duration.ofMillis(50), p.getStateInterval());
                    assertEquals(Duration.ofSeconds(2), p.getHelloTimeout());
                    assertEquals(100_000L, p.getMaxTotalCacheBlocks());
                    assertEquals(250_000.0, p.getMaxBytesPerSecond());
                    assertEquals(65_536, p.getMaxInboundBytesPerSecond());
                    assertEquals("MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", p.getResumeKey());
                    assertEquals(Duration.ofMinutes(30), p.getResumeTtl());
                    assertTrue(context.getBean(KhameleonServer.class).port() > 0);
                });
    }

    @Test
    void invalidProperty_failsStartupNamingTheProperty() {
        assertStartupFails("khameleon.max-sessions=0", "khameleon.max-sessions: maxSessions must be in [1, 1000000], was 0");
        assertStartupFails("khameleon.allowed-hosts=app.example:8090",
                "khameleon.allowed-hosts: allowedHosts must be host names without a port");
        assertStartupFails("khameleon.port=70000", "khameleon.port: port must be in [0, 65535], was 70000");
        assertStartupFails("khameleon.host= ", "khameleon.host: host must be non-blank");
        assertStartupFails("khameleon.state-interval=11s", "khameleon.state-interval: stateInterval must be in");
        assertStartupFails("khameleon.max-bytes-per-second=10", "khameleon.max-bytes-per-second: maxBytesPerSecond must be in");
        assertStartupFails("khameleon.max-inbound-bytes-per-second=1000",
                "khameleon.max-inbound-bytes-per-second: maxInboundBytesPerSecond must be in");
        assertStartupFails("khameleon.resume-key=c2hvcnQ=", "khameleon.resume-key: resumeKey must have at least 32 bytes");
        assertStartupFails("khameleon.resume-key=not base64!", "khameleon.resume-key: resumeKey must be base64");
        assertStartupFails("khameleon.resume-ttl=0s", "khameleon.resume-ttl: resumeTtl must be in");
        assertStartupFails("khameleon.max-total-cache-blocks=100",
                "khameleon.max-cache-blocks (16384) must not exceed khameleon.max-total-cache-blocks (100)");
    }

    private void assertStartupFails(String property, String messageStart) {
        runner.withUserConfiguration(OneApplication.class).withPropertyValues(property).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertTrue(failure != null, property + " must fail startup");
            Throwable cause = failure;
            while (!(cause instanceof IllegalArgumentException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertTrue(cause instanceof IllegalArgumentException && cause.getMessage().startsWith(messageStart),
                    "expected a message starting with '" + messageStart + "', got " + failure);
        });
    }

    @Test
    void twoApplicationsWithOnePath_failStartupNamingThePath() {
        runner.withUserConfiguration(SamePathTwice.class).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertTrue(failure != null, "two applications at /same must fail startup");
            assertTrue(String.valueOf(failure.getMessage()).contains("path /same is already taken"), failure.toString());
        });
    }

    @Test
    void userServerBean_wins() {
        runner.withUserConfiguration(OneApplication.class, UserServer.class).run(context -> {
            assertNull(context.getStartupFailure());
            KhameleonServer server = context.getBean(KhameleonServer.class);
            assertSame(context.getBean("myServer"), server);
            assertTrue(context.getBeansOfType(ServerLifecycle.class).isEmpty(), "the user's server is the user's to start");
            assertThrows(IllegalStateException.class, server::port, "not started by the auto-configuration");
        });
    }
}
