package org.dthreads.junit.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The site line protocol. Site to test (stdout), one line each:
 * <pre>
 *   DTHREADS-SITE &lt;token&gt; HELLO pid=&lt;pid&gt; protocol=1
 *   DTHREADS-SITE &lt;token&gt; ENDPOINT &lt;key&gt;=&lt;value&gt;
 *   DTHREADS-SITE &lt;token&gt; READY [&lt;key&gt;=&lt;value&gt; ...]
 *   DTHREADS-SITE &lt;token&gt; REPLY &lt;id&gt; OK|ERR &lt;payload&gt;
 *   DTHREADS-SITE &lt;token&gt; FAILED &lt;payload&gt;
 * </pre>
 * Test to site (stdin): {@code RUN <id> <step> [_arg ...]}, {@code THREADS <id>},
 * {@code MONITORS <id>}, {@code PING <id>}, {@code PEER <site> <key>=<value>}, {@code EXIT <code>}.
 * Keys, values, arguments and payloads are URL-encoded (UTF-8), so no field contains a space or a
 * line break. Anything that does not parse is ignored by both sides.
 */
public final class Protocol {

    public static final String MARKER = "DTHREADS-SITE";
    public static final int VERSION = 1;

    private Protocol() {}

    public static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Decodes, or throws {@link IllegalArgumentException} on malformed input. */
    public static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Encodes a step argument: URL-encoded behind a {@code _}, so that an empty one is still a field. */
    public static String encodeArg(String s) {
        return "_" + encode(s);
    }

    /** Decodes what {@link #encodeArg} made. */
    public static String decodeArg(String s) {
        if (!s.startsWith("_")) {
            throw new IllegalArgumentException("not an encoded argument: " + s);
        }
        return decode(s.substring(1));
    }

    public static String line(String token, String verb, String... fields) {
        StringBuilder sb = new StringBuilder(MARKER).append(' ').append(token).append(' ').append(verb);
        for (String f : fields) {
            sb.append(' ').append(f);
        }
        return sb.append('\n').toString();
    }

    public static String pair(String key, String value) {
        return encode(key) + "=" + encode(value);
    }

    /** A parsed site-to-test message. */
    public record Message(String verb, List<String> fields) {
        public String field(int i) {
            return i < fields.size() ? fields.get(i) : null;
        }

        /** Fields from {@code from} on, as decoded key=value pairs; malformed pairs throw. */
        public Map<String, String> pairs(int from) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = from; i < fields.size(); i++) {
                String f = fields.get(i);
                int eq = f.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("not a key=value pair: " + f);
                }
                m.put(decode(f.substring(0, eq)), decode(f.substring(eq + 1)));
            }
            return m;
        }
    }

    /**
     * Parses a line written by a site. The marker may be preceded by other output that was not
     * terminated by a line break; it must be followed by this site's token.
     */
    public static Optional<Message> parse(String line, String token) {
        int at = line.indexOf(MARKER + " " + token + " ");
        if (at < 0) {
            return Optional.empty();
        }
        String rest = line.substring(at + MARKER.length() + token.length() + 2).strip();
        if (rest.isEmpty()) {
            return Optional.empty();
        }
        List<String> parts = new ArrayList<>(List.of(rest.split(" +")));
        String verb = parts.remove(0);
        return Optional.of(new Message(verb, List.copyOf(parts)));
    }

    /** Splits a test-to-site command. */
    public static List<String> splitCommand(String line) {
        String s = line.strip();
        return s.isEmpty() ? List.of() : List.of(s.split(" +"));
    }
}
