package dev.khameleon.microbench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings every benchmark here shares, set once: the average time of one call in
 * microseconds, one fork with a 1–2 GiB heap, three one-second warm-up iterations and five measured
 * ones. JMH reads these annotations through the class hierarchy, so a benchmark extends this class and
 * annotates only what it changes; options on the command line ({@code -f}, {@code -wi}, {@code -i},
 * {@code -w}, {@code -r}) override both.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class MicroBenchmark {
    /** For subclasses only. */
    protected MicroBenchmark() {
    }
}
