package dev.khameleon.microbench;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ManifestRun;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ResumeRequest;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.spi.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What a node pays to resume one session moved from another node: decoding the resuming hello
 * with its ring's manifest ({@code decodeHello}), and seeding a fresh scheduler with that ring
 * ({@code seedScheduler}: the scheduler's creation, {@code O(n)}, plus {@code Scheduler.resume},
 * {@code O(C)}); {@code createScheduler} is the creation alone, which a fresh session pays too.
 * The HMAC check of the token is not included (one HMAC-SHA256 over about 60 bytes).
 *
 * <p>The ring is the last {@code C} slots of {@code 1.5·C} planned by the greedy scheduler from
 * a distribution over {@code requests} with 1 % explicit ids ({@link SchedulerBenchmark}'s), 10
 * blocks per request; {@code worstCase} makes every slot its own manifest run (the largest
 * manifest a ring of {@code C} slots can have).
 *
 * <p>Run:
 * <pre>
 * mvn -B -q package -pl khameleon-microbench -am -DskipTests
 * java -jar khameleon-microbench/target/benchmarks.jar ResumeBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
public class ResumeBenchmark extends MicroBenchmark {
    static final int BLOCKS = 10;

    @Param({"10000", "1000000"})
    public int requests;

    @Param({"1000", "16384"})
    public int cacheBlocks;

    @Param({"false", "true"})
    public boolean worstCase;

    private SchedulerConfig config;
    private long nextSeq;
    private int[] ids;
    private int[] blocks;
    private String hello;

    @Setup(Level.Trial)
    public void setUp() {
        config = SchedulerConfig.builder().cacheBlocks(cacheBlocks).requestCount(requests).blocksPerRequest(BLOCKS)
                .chunkSize(SchedulerBenchmark.CHUNK).seed(42).build();
        Distribution d = SchedulerBenchmark.distribution(requests, 0.01, new SplittableRandom(7));
        Scheduler s = Schedulers.greedy(config);
        s.replan(d, 0, SchedulerBenchmark.SLOT_MILLIS);
        nextSeq = cacheBlocks + cacheBlocks / 2;
        int[] plannedIds = new int[(int) nextSeq];
        int[] plannedBlocks = new int[(int) nextSeq];
        for (int k = 0; k < nextSeq; ) {
            ScheduleChunk c = s.next((int) Math.min(SchedulerBenchmark.CHUNK, nextSeq - k));
            if (c.isEmpty()) {
                throw new IllegalStateException("the scheduler stopped at " + k);
            }
            for (int i = 0; i < c.size(); i++, k++) {
                plannedIds[k] = c.requestId(i);
                plannedBlocks[k] = c.blockIndex(i);
            }
        }
        ids = java.util.Arrays.copyOfRange(plannedIds, (int) nextSeq - cacheBlocks, (int) nextSeq);
        blocks = java.util.Arrays.copyOfRange(plannedBlocks, (int) nextSeq - cacheBlocks, (int) nextSeq);
        List<ManifestRun> runs = new ArrayList<>();
        for (int k = 0; k < cacheBlocks; k++) {
            ManifestRun last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (!worstCase && last != null && last.requestId() == ids[k]
                    && last.firstBlock() + last.count() == blocks[k]) {
                runs.set(runs.size() - 1, new ManifestRun(ids[k], last.firstBlock(), last.count() + 1));
            } else {
                runs.add(new ManifestRun(ids[k], blocks[k], 1));
            }
        }
        // One message whatever its size: the decoding cost per run is what is measured.
        hello = ControlCodec.encode(new ControlMessage.Hello(Protocol.VERSION, "app", cacheBlocks, Optional.empty(),
                List.of(Protocol.FEATURE_RESUME), Optional.of(new ResumeRequest("t".repeat(120), nextSeq, runs, 0))));
    }

    /** Decodes the resuming hello, manifest included. */
    @Benchmark
    public ControlMessage decodeHello() {
        return ControlCodec.decodeFromClient(hello);
    }

    /** Creates a session's scheduler, as every new session does. */
    @Benchmark
    public Scheduler createScheduler() {
        return Schedulers.greedy(config);
    }

    /** Creates a session's scheduler and seeds it with the moved client's ring. */
    @Benchmark
    public Scheduler seedScheduler() {
        Scheduler s = Schedulers.greedy(config);
        if (!s.resume(nextSeq, ids, blocks)) {
            throw new IllegalStateException("the greedy scheduler resumes");
        }
        return s;
    }
}
