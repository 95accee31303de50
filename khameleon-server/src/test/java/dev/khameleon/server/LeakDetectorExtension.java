package dev.khameleon.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Makes every test class of this module fail if Netty reports a leaked {@link ByteBuf}.
 *
 * <p>Registered automatically (META-INF/services and junit-platform.properties), so its static
 * initialiser runs before any buffer class loads and installs a leak-detector factory whose
 * detectors record each report. After each test class it collects garbage and allocates a few
 * buffers (which makes the detectors poll their reference queues), then fails on any report.
 */
public final class LeakDetectorExtension implements AfterAllCallback {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    /** Set by the self-test while it leaks on purpose, so the expected report is not logged. */
    static volatile boolean quiet;

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.valueOf(System.getProperty("io.netty.leakDetection.level", "paranoid").toUpperCase()));
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            // Deprecated, but the one abstract method: Netty's other overloads end here.
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return new RecordingDetector<>(resource, samplingInterval);
            }
        });
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add(resourceType + " leaked:" + records);
            if (!quiet) {
                super.reportTracedLeak(resourceType, records);
            }
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add(resourceType + " leaked (untraced)");
            if (!quiet) {
                super.reportUntracedLeak(resourceType);
            }
        }
    }

    /** Forces the detectors to look for leaked buffers now and returns what they found so far. */
    static List<String> collectLeaks() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            for (ByteBufAllocator a : new ByteBufAllocator[] {
                ByteBufAllocator.DEFAULT, PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT}) {
                for (int i = 0; i < 8; i++) {
                    a.buffer(16).release();
                    a.directBuffer(16).release();
                }
            }
        }
        return new ArrayList<>(LEAKS);
    }

    /** Forgets the reports collected so far (for the self-test that leaks on purpose). */
    static void forget() {
        LEAKS.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            LEAKS.clear();
            fail(leaks.size() + " ByteBuf leak(s) reported during " + context.getDisplayName() + ":\n"
                    + String.join("\n", leaks));
        }
    }
}
