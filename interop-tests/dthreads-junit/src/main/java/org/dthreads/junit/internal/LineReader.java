package org.dthreads.junit.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads lines of bounded length from a byte stream. Bytes past {@code maxLineBytes} in one line are
 * discarded (the line is returned truncated), so a site printing megabytes without a line break
 * cannot exhaust the test's memory. Malformed UTF-8 is replaced, NUL and other control characters
 * are kept. Not thread-safe: one reader thread.
 */
public final class LineReader {

    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] buf = new byte[8192];
    private int pos;
    private int len;
    private boolean lastTruncated;

    public LineReader(InputStream in, int maxLineBytes) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
    }

    /** Whether the line last returned was cut at the length bound. */
    public boolean lastTruncated() {
        return lastTruncated;
    }

    /** The next line without its terminator ({@code \n} or {@code \r\n}), or null at end of stream. */
    public String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        boolean truncated = false;
        boolean any = false;
        while (true) {
            if (pos == len) {
                len = in.read(buf);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    if (!any) {
                        return null;
                    }
                    break;
                }
            }
            any = true;
            int start = pos;
            while (pos < len && buf[pos] != '\n') {
                pos++;
            }
            int n = pos - start;
            int room = maxLineBytes - line.size();
            if (n > room) {
                truncated = true;
            }
            line.write(buf, start, Math.max(0, Math.min(n, room)));
            if (pos < len) {
                pos++; // the '\n'
                break;
            }
        }
        lastTruncated = truncated;
        byte[] bytes = line.toByteArray();
        int end = bytes.length;
        if (end > 0 && bytes[end - 1] == '\r') {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
