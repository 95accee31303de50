package dev.khameleon.simulator.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads Balabit Mouse Dynamics Challenge sessions ({@code userN/session_*.gz}, gzip'd CSV
 * {@code record timestamp,client timestamp,button,state,x,y}) and cuts them into segments of
 * active interaction.
 *
 * <p>Quirks handled, as documented in the data set's README:
 * <ul>
 *   <li>the <em>client</em> timestamp (seconds since session start) is used, not the record one;</li>
 *   <li>only {@code Move} and {@code Drag} rows are pointer motion; clicks and scrolls are skipped;</li>
 *   <li>rows whose x or y is the sentinel {@value #SENTINEL} (or negative) are dropped;</li>
 *   <li>a row whose timestamp goes backwards is dropped (counted in {@link Session#backwardsDropped()});</li>
 *   <li>rows sharing a timestamp collapse to the last one (14 % of rows; the pointer can only be
 *       in one place at one time, and a zero time step would break velocity estimates);</li>
 *   <li>idle gaps longer than {@code idleGapMillis} split the session into active runs; a
 *       {@linkplain #segments segment} joins consecutive runs with each gap shortened to
 *       {@code idleGapMillis} until it spans {@code segmentMillis}, so a 3-minute segment holds
 *       3 minutes of interaction (the idle pointer still rests between runs).</li>
 * </ul>
 * The screen size of a session is its largest x and y plus one (Balabit screens range from
 * 1024×768 to 1920×1080); the simulator maps that screen onto the mosaic.
 *
 * <p>Stateless and thread-safe. I/O and format errors are {@link UncheckedIOException}s or
 * {@link IllegalArgumentException}s naming the file and line.
 */
public final class BalabitReader {
    /** The value Balabit writes for an unknown coordinate. */
    public static final int SENTINEL = 65535;

    private BalabitReader() {
    }

    /**
     * One session after filtering: times in milliseconds (not yet shifted to 0), strictly
     * increasing, with the count of rows of each quirk.
     *
     * @param name             the session's short name, {@code userN/session_X}
     * @param timesMillis      client timestamps in ms
     * @param xs               x positions in pixels
     * @param ys               y positions in pixels
     * @param screenWidth      largest x plus one
     * @param screenHeight     largest y plus one
     * @param sentinelDropped  rows dropped for a sentinel or negative coordinate
     * @param backwardsDropped rows dropped because their timestamp went backwards
     * @param sameTimeCollapsed rows replaced by a later row with the same timestamp
     */
    public record Session(String name, double[] timesMillis, double[] xs, double[] ys,
                          double screenWidth, double screenHeight,
                          int sentinelDropped, int backwardsDropped, int sameTimeCollapsed) {
        /** The number of samples kept. */
        public int size() {
            return timesMillis.length;
        }
    }

    /** Reads and filters one session file. */
    public static Session read(Path file) {
        String name = file.getParent() == null ? file.getFileName().toString()
                : file.getParent().getFileName() + "/" + file.getFileName().toString().replaceFirst("\\.gz$", "");
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)) {
            return parse(name, reader, file.toString());
        } catch (ZipException e) {
            throw new IllegalArgumentException(file + ": not a gzip file (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Balabit session " + file, e);
        }
    }

    static Session parse(String name, BufferedReader reader, String source) throws IOException {
        Samples samples = new Samples();
        int sentinel = 0;
        String line = reader.readLine();
        if (line == null || !line.startsWith("record timestamp")) {
            throw new IllegalArgumentException(source + ": not a Balabit session (header is " + line + ")");
        }
        int lineNo = 1;
        while ((line = reader.readLine()) != null) {
            lineNo++;
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length != 6) {
                throw new IllegalArgumentException(source + ":" + lineNo + ": expected 6 fields, got " + f.length);
            }
            String state = f[3];
            if (!state.equals("Move") && !state.equals("Drag")) {
                continue;
            }
            double time;
            int px;
            int py;
            try {
                time = Double.parseDouble(f[1]) * 1000.0;
                px = Integer.parseInt(f[4]);
                py = Integer.parseInt(f[5]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(source + ":" + lineNo + ": bad number in " + line, e);
            }
            if (px == SENTINEL || py == SENTINEL || px < 0 || py < 0) {
                sentinel++;
                continue;
            }
            if (!Double.isFinite(time)) {
                throw new IllegalArgumentException(source + ":" + lineNo + ": bad client timestamp " + f[1]);
            }
            samples.add(time, px, py);
        }
        if (samples.size() == 0) {
            throw new IllegalArgumentException(source + ": no Move/Drag rows with valid coordinates");
        }
        return new Session(name, samples.times(), samples.xs(), samples.ys(), samples.maxX() + 1, samples.maxY() + 1,
                sentinel, samples.backwards(), samples.collapsed());
    }

    /**
     * Cuts a session into segments of {@code segmentMillis} of interaction (see the class
     * comment). The last, shorter segment is kept if it spans at least half of
     * {@code segmentMillis}.
     *
     * @throws IllegalArgumentException if a length is not positive
     */
    public static List<PointerTrace> segments(Session session, double segmentMillis, double idleGapMillis) {
        if (!(segmentMillis > 0)) {
            throw new IllegalArgumentException("segmentMillis must be > 0, was " + segmentMillis);
        }
        if (!(idleGapMillis > 0)) {
            throw new IllegalArgumentException("idleGapMillis must be > 0, was " + idleGapMillis);
        }
        double[] src = session.timesMillis();
        List<PointerTrace> out = new ArrayList<>();
        Samples seg = new Samples();
        double removed = 0;
        double segStart = 0;
        for (int i = 0; i < src.length; i++) {
            if (i > 0 && src[i] - src[i - 1] > idleGapMillis) {
                removed += src[i] - src[i - 1] - idleGapMillis;
            }
            double ti = src[i] - removed;
            if (seg.size() == 0) {
                segStart = ti;
            } else if (ti - segStart > segmentMillis) {
                out.add(segment(session, out.size(), seg));
                seg.clear();
                segStart = ti;
            }
            seg.add(ti, session.xs()[i], session.ys()[i]);
        }
        if (seg.size() > 1 && seg.lastTime() - segStart >= segmentMillis / 2) {
            out.add(segment(session, out.size(), seg));
        }
        return out;
    }

    private static PointerTrace segment(Session session, int index, Samples seg) {
        return PointerTrace.of(session.name() + "#" + index, seg.times(), seg.xs(), seg.ys(), session.screenWidth(),
                session.screenHeight());
    }
}
