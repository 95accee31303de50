package dev.khameleon.core.image;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A minimal reader of a JPEG's marker structure: the segments in file order and, for each
 * scan, its spectral selection and where its entropy-coded data ends. Enough to find the end
 * of a progressive JPEG's DC scans; not a decoder.
 */
final class JpegScans {
    static final int SOI = 0xD8;
    static final int EOI = 0xD9;
    static final int SOS = 0xDA;
    static final int DHT = 0xC4;
    static final int SOF2 = 0xC2;

    /**
     * One marker segment. {@code offset} is the position of its {@code 0xFF} marker byte;
     * {@code end} is the position after the segment, including a scan's entropy-coded data.
     * The spectral fields are those of a scan header and -1 for other segments.
     */
    record Segment(int marker, int offset, int end, int ss, int se, int ah, int al) {
        boolean isScan() {
            return marker == SOS;
        }

        /** A first (not refining) scan of DC coefficients only: the full-frame preview. */
        boolean isDcFirstScan() {
            return marker == SOS && ss == 0 && se == 0 && ah == 0;
        }
    }

    private JpegScans() {
    }

    /**
     * The segments of {@code jpeg} from SOI up to and including EOI.
     *
     * @throws IllegalArgumentException if the bytes are not a complete, well-formed JPEG marker
     *     sequence (the message says what is wrong and where)
     */
    static List<Segment> segments(byte[] jpeg) {
        if (jpeg.length < 4 || u8(jpeg, 0) != 0xFF || u8(jpeg, 1) != SOI) {
            throw new IllegalArgumentException("not a JPEG: does not start with the SOI marker FF D8");
        }
        List<Segment> out = new ArrayList<>();
        out.add(new Segment(SOI, 0, 2, -1, -1, -1, -1));
        int pos = 2;
        while (true) {
            if (pos >= jpeg.length || u8(jpeg, pos) != 0xFF) {
                throw new IllegalArgumentException("malformed JPEG: expected a marker at offset " + pos);
            }
            int start = pos;
            while (pos < jpeg.length && u8(jpeg, pos) == 0xFF) {
                pos++; // fill bytes may precede any marker
            }
            if (pos >= jpeg.length) {
                throw new IllegalArgumentException("truncated JPEG: ends inside a marker at offset " + start);
            }
            int marker = u8(jpeg, pos++);
            if (marker == EOI) {
                out.add(new Segment(EOI, start, pos, -1, -1, -1, -1));
                return Collections.unmodifiableList(out);
            }
            if (pos + 2 > jpeg.length) {
                throw new IllegalArgumentException("truncated JPEG: segment " + hex(marker) + " at offset " + start);
            }
            int length = (u8(jpeg, pos) << 8) | u8(jpeg, pos + 1);
            int headerEnd = pos + length;
            if (length < 2 || headerEnd > jpeg.length) {
                throw new IllegalArgumentException("malformed JPEG: segment " + hex(marker) + " at offset " + start
                        + " has length " + length + " beyond the end of the data");
            }
            if (marker != SOS) {
                out.add(new Segment(marker, start, headerEnd, -1, -1, -1, -1));
                pos = headerEnd;
                continue;
            }
            int components = u8(jpeg, pos + 2);
            int spectral = pos + 3 + 2 * components;
            if (spectral + 3 > headerEnd) {
                throw new IllegalArgumentException("malformed JPEG: scan header at offset " + start + " is too short");
            }
            int approx = u8(jpeg, spectral + 2);
            int dataEnd = entropyDataEnd(jpeg, headerEnd);
            out.add(new Segment(SOS, start, dataEnd, u8(jpeg, spectral), u8(jpeg, spectral + 1),
                    approx >> 4, approx & 0x0F));
            pos = dataEnd;
        }
    }

    /**
     * The length of the prefix of {@code jpeg} that holds its headers and all its leading DC
     * first scans: the position of the marker (in ImageIO's output, a DHT) that follows the
     * last of them.
     *
     * @throws IllegalArgumentException if {@code jpeg} is malformed or does not begin with a
     *     progressive DC scan
     */
    static int previewEnd(byte[] jpeg) {
        int end = -1;
        for (Segment s : segments(jpeg)) {
            if (!s.isScan()) {
                continue;
            }
            if (!s.isDcFirstScan()) {
                break;
            }
            end = s.end();
        }
        if (end < 0) {
            throw new IllegalArgumentException("not a progressive JPEG: its first scan is not a DC first scan");
        }
        return end;
    }

    /**
     * The length of the longest part of {@code jpeg[0, length)} that a decoder can render once an
     * EOI marker is appended: everything up to the end of the last scan's entropy-coded data (a
     * scan cut short counts up to its last whole byte; a trailing {@code 0xFF}, which may begin a
     * marker or a stuffed byte, is dropped), or the whole JPEG when its EOI is present. What
     * follows the last scan's data — a DHT or SOS segment cut short, or complete tables of a scan
     * whose header is not there yet — is left out, since decoders reject a half segment ("Bogus
     * Huffman table definition") and a table without its scan adds nothing. Bytes that stop
     * looking like a JPEG are treated like the end of the prefix.
     *
     * <p>Total on arbitrary bytes: returns 0 when nothing is renderable yet (not a JPEG, or no
     * scan header complete) and never reads past {@code length}.
     *
     * @throws IllegalArgumentException if {@code length} is not in {@code [0, jpeg.length]}
     */
    static int renderableLength(byte[] jpeg, int length) {
        if (length < 0 || length > jpeg.length) {
            throw new IllegalArgumentException("length must be in [0, " + jpeg.length + "], was " + length);
        }
        if (length < 2 || u8(jpeg, 0) != 0xFF || u8(jpeg, 1) != SOI) {
            return 0;
        }
        int renderable = 0; // the end of the last scan's data seen so far
        int pos = 2;
        while (pos < length && u8(jpeg, pos) == 0xFF) {
            while (pos < length && u8(jpeg, pos) == 0xFF) {
                pos++; // fill bytes
            }
            if (pos >= length) {
                return renderable;
            }
            int marker = u8(jpeg, pos++);
            if (marker == EOI) {
                return renderable > 0 ? pos : 0;
            }
            if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
                continue; // TEM and RSTn stand alone, without a length
            }
            if (marker == 0x00 || pos + 2 > length) {
                return renderable;
            }
            int headerEnd = pos + ((u8(jpeg, pos) << 8) | u8(jpeg, pos + 1));
            if (headerEnd < pos + 2 || headerEnd > length) {
                return renderable;
            }
            pos = headerEnd;
            if (marker != SOS) {
                continue;
            }
            int dataEnd = entropyDataEndWithin(jpeg, headerEnd, length);
            if (dataEnd < 0) {
                // The scan runs to the end of the prefix: decoders render it as far as it goes.
                return u8(jpeg, length - 1) == 0xFF && length - 1 >= headerEnd ? length - 1 : length;
            }
            renderable = dataEnd;
            pos = dataEnd;
        }
        return renderable;
    }

    /**
     * The position of the first marker in the entropy-coded data of {@code jpeg[from, length)},
     * or -1 if the data runs to {@code length} (a lone {@code 0xFF} at the end included).
     */
    private static int entropyDataEndWithin(byte[] jpeg, int from, int length) {
        int i = from;
        while (i + 1 < length) {
            if (u8(jpeg, i) == 0xFF) {
                int next = u8(jpeg, i + 1);
                if (next != 0x00 && !(next >= 0xD0 && next <= 0xD7)) {
                    return i;
                }
                i += 2;
            } else {
                i++;
            }
        }
        return -1;
    }

    /**
     * The position of the first marker after the entropy-coded data starting at {@code from}:
     * a {@code 0xFF} not followed by a stuffed {@code 0x00}, a fill {@code 0xFF} or a restart
     * marker.
     */
    private static int entropyDataEnd(byte[] jpeg, int from) {
        int end = entropyDataEndWithin(jpeg, from, jpeg.length);
        if (end < 0) {
            throw new IllegalArgumentException("truncated JPEG: scan data from offset " + from + " has no end marker");
        }
        return end;
    }

    private static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }

    private static String hex(int marker) {
        return String.format("FF %02X", marker);
    }
}
