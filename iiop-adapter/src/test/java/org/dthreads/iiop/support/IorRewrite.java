package org.dthreads.iiop.support;

import java.util.HexFormat;
import org.omg.CORBA.Any;
import org.omg.CORBA.ORB;
import org.omg.IIOP.ProfileBody_1_0;
import org.omg.IIOP.ProfileBody_1_0Helper;
import org.omg.IIOP.ProfileBody_1_1;
import org.omg.IIOP.ProfileBody_1_1Helper;
import org.omg.IIOP.Version;
import org.omg.IOP.Codec;
import org.omg.IOP.CodecFactoryHelper;
import org.omg.IOP.ENCODING_CDR_ENCAPS;
import org.omg.IOP.Encoding;
import org.omg.IOP.IOR;
import org.omg.IOP.IORHelper;
import org.omg.IOP.TAG_INTERNET_IOP;
import org.omg.IOP.TaggedComponent;
import org.omg.IOP.TaggedProfile;

/**
 * Rewrites a stringified IOR with the ORB's standard CDR codec: its IIOP profile pointed at another
 * port of 127.0.0.1 and given IIOP version 1.{@code minor} (the GIOP version a client then speaks);
 * version 1.0 drops the tagged components (1.0 profiles have none, so no code-set component).
 */
public final class IorRewrite {

    private IorRewrite() {}

    /** The port of the first IIOP profile of {@code ior}. */
    public static int port(ORB orb, String ior) {
        try {
            Codec codec = codec(orb);
            IOR parsed = IORHelper.extract(codec.decode_value(HexFormat.of().parseHex(ior.substring(4)), IORHelper.type()));
            for (TaggedProfile p : parsed.profiles) {
                if (p.tag == TAG_INTERNET_IOP.value) {
                    return ProfileBody_1_1Helper.extract(codec.decode_value(p.profile_data, ProfileBody_1_1Helper.type())).port & 0xFFFF;
                }
            }
            throw new IllegalArgumentException("no IIOP profile");
        } catch (org.omg.CORBA.UserException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Codec codec(ORB orb) throws org.omg.CORBA.UserException {
        return CodecFactoryHelper.narrow(orb.resolve_initial_references("CodecFactory"))
                .create_codec(new Encoding(ENCODING_CDR_ENCAPS.value, (byte) 1, (byte) 2));
    }

    public static String to(ORB orb, String ior, int port, int minor) {
        try {
            Codec codec = codec(orb);
            IOR parsed = IORHelper.extract(codec.decode_value(HexFormat.of().parseHex(ior.substring(4)), IORHelper.type()));
            for (int i = 0; i < parsed.profiles.length; i++) {
                TaggedProfile p = parsed.profiles[i];
                if (p.tag != TAG_INTERNET_IOP.value) {
                    continue;
                }
                ProfileBody_1_1 body = ProfileBody_1_1Helper.extract(codec.decode_value(p.profile_data, ProfileBody_1_1Helper.type()));
                Any out = orb.create_any();
                if (minor == 0) {
                    ProfileBody_1_0Helper.insert(out, new ProfileBody_1_0(new Version((byte) 1, (byte) 0), "127.0.0.1",
                            (short) port, body.object_key));
                } else {
                    ProfileBody_1_1Helper.insert(out, new ProfileBody_1_1(new Version((byte) 1, (byte) minor), "127.0.0.1",
                            (short) port, body.object_key, body.components == null ? new TaggedComponent[0] : body.components));
                }
                parsed.profiles[i] = new TaggedProfile(TAG_INTERNET_IOP.value, codec.encode_value(out));
            }
            Any all = orb.create_any();
            IORHelper.insert(all, parsed);
            return "IOR:" + HexFormat.of().formatHex(codec.encode_value(all));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
