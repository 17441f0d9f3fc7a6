package org.dthreads.iiop.internal;

import java.nio.charset.StandardCharsets;

/**
 * The endpoint named by an IIOP profile body ({@code TAG_INTERNET_IOP}'s {@code profile_data}: a CDR encapsulation
 * of {@code IIOP::ProfileBody}, whose version, host and port come first in every IIOP version). Read by hand, not
 * through an ORB's CDR streams: it runs on every portable-path request, and a few bytes are enough.
 */
final class IiopEndpoint {

    private IiopEndpoint() {}

    /**
     * @param profileData the encapsulation (byte order octet first)
     * @return {@code "iiop host:port"}, or null if the bytes are not a well-formed profile body
     */
    static String of(byte[] profileData) {
        if (profileData == null || profileData.length < 8) {
            return null;
        }
        boolean little = (profileData[0] & 1) == 1;
        // octet order, octet major, octet minor, then the host string's ulong length aligned to 4: offset 4
        long hostLength = SiteHelloContext.read(profileData, 4, 4, little);
        int hostStart = 8;
        if (hostLength < 1 || hostLength > profileData.length - hostStart) {
            return null;
        }
        int portOffset = hostStart + (int) hostLength; // the length counts the string's terminating NUL
        portOffset += portOffset & 1; // ushort aligned to 2 (within the encapsulation)
        if (portOffset + 2 > profileData.length) {
            return null;
        }
        long port = SiteHelloContext.read(profileData, portOffset, 2, little);
        String host = new String(profileData, hostStart, (int) hostLength - 1, StandardCharsets.ISO_8859_1);
        return "iiop " + host + ":" + port;
    }
}
