package org.dthreads.junit.internal;

import java.util.ArrayDeque;

/** The last lines of a stream, bounded in line count and line length. Thread-safe. */
public final class Tail {

    private final int maxLines;
    private final int maxLineChars;
    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private long dropped;

    public Tail(int maxLines, int maxLineChars) {
        this.maxLines = maxLines;
        this.maxLineChars = maxLineChars;
    }

    public synchronized void add(String line) {
        String l = line.length() > maxLineChars
                ? line.substring(0, maxLineChars) + "... [" + (line.length() - maxLineChars) + " more chars]"
                : line;
        lines.addLast(l);
        while (lines.size() > maxLines) {
            lines.removeFirst();
            dropped++;
        }
    }

    public synchronized boolean isEmpty() {
        return lines.isEmpty();
    }

    /** The kept lines, each prefixed, with a note of how many earlier lines were dropped. */
    public synchronized String render(String prefix) {
        StringBuilder sb = new StringBuilder();
        if (dropped > 0) {
            sb.append(prefix).append("[... ").append(dropped).append(" earlier lines dropped]\n");
        }
        for (String l : lines) {
            sb.append(prefix).append(l).append('\n');
        }
        return sb.toString();
    }
}
