package dev.khameleon.server.micrometer;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

class KhameleonMeterBinderTest {

    @Test
    void bindTo_registersMetersThatReadTheServer() {
        BlockSource source = BlockSource.inMemory(4, List.of(List.of(Block.of(0, 0, 1, new byte[4], 0))));
        try (KhameleonServer server = KhameleonServer.builder().seed(1)
                .application(Application.builder("a").blockSource(source).build()).build()) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new KhameleonMeterBinder(server, Tags.of("service", "test")).bindTo(registry);
            assertEquals(0.0, registry.get("khameleon.sessions.active").tag("service", "test").gauge().value());
            assertEquals(0.0, registry.get("khameleon.bytes.pushed").functionCounter().count());
            assertNotNull(registry.find("khameleon.replans").functionCounter());
            assertEquals(0.0, registry.get("khameleon.sessions.resumed").functionCounter().count());
            assertNotNull(registry.find("khameleon.resumes.refused").functionCounter());
            assertEquals(12, registry.getMeters().size());
        }
    }
}
