package org.dthreads.benchmarks.paper.table2;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.LongSupplier;
import org.tukaani.xz.ArrayCache;
import org.tukaani.xz.BasicArrayCache;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZ;
import org.tukaani.xz.XZInputStream;
import org.tukaani.xz.XZOutputStream;

/**
 * Table 2's XZ workload, the counterpart of SPEC's compress: 256 KiB of generated text compressed
 * with LZMA2 (preset 3, CRC64) and decompressed again, by XZ for Java. Loaded by each build's class
 * loader; the value (compressed size and a checksum of the round trip) is the same for every build.
 */
public final class XzWorkload implements LongSupplier {

    private static final String[] WORDS = {"thread", "class", "monitor", "remote", "call", "zigzag", "site",
        "identity", "the", "of", "a", "to", "and", "wait", "notify", "enter", "exit", "stub", "skeleton", "orb"};

    private final byte[] input;
    private final ArrayCache cache = new BasicArrayCache();
    private final ByteArrayOutputStream compressed = new ByteArrayOutputStream(1 << 17);
    private final byte[] buffer = new byte[8192];

    public XzWorkload() {
        StringBuilder text = new StringBuilder(1 << 18);
        int seed = 42;
        while (text.length() < (1 << 18)) {
            seed = seed * 1103515245 + 12345;
            text.append(WORDS[(seed >>> 16) % WORDS.length]);
            text.append((seed & 0x300) == 0 ? ".\n" : " ");
            if ((seed & 0xF000) == 0) {
                text.append(seed >>> 20);
            }
        }
        input = text.substring(0, 1 << 18).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Override
    public long getAsLong() {
        try {
            compressed.reset();
            try (XZOutputStream out = new XZOutputStream(compressed, new LZMA2Options(3), XZ.CHECK_CRC64, cache)) {
                out.write(input, 0, input.length);
            }
            long sum = compressed.size();
            try (XZInputStream in = new XZInputStream(new ByteArrayInputStream(compressed.toByteArray()), -1, true, cache)) {
                long n = 0;
                for (int r; (r = in.read(buffer, 0, buffer.length)) > 0; ) {
                    for (int i = 0; i < r; i++) {
                        sum = sum * 31 + buffer[i];
                    }
                    n += r;
                }
                if (n != input.length) {
                    throw new IllegalStateException("decompressed " + n + " bytes of " + input.length);
                }
            }
            return sum;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
