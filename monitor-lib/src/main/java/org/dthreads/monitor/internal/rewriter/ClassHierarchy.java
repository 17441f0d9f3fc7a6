package org.dthreads.monitor.internal.rewriter;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;

/**
 * Super-types read from class bytes through a class loader's resources, never by loading classes:
 * a rewriter running inside {@code ClassFileTransformer.transform} must not trigger class loading
 * (it could recurse, deadlock or load a class before it is rewritten).
 *
 * <p>Thread-safe; one instance per defining loader and rewrite (cheap to create). The super-types of
 * {@code java/} types are also kept in one map shared by all instances ({@link #JDK}): only the JDK's own
 * loaders may define a {@code java.*} class, so whichever loader asks reads the same class file, and every
 * class rewritten asks again for the same few ({@code Object}, {@code Throwable}, {@code Serializable}); without
 * it each rewrite read them anew through the loader's resources. Bounded by the JDK's {@code java.*} types.
 *
 * <p>Other types' super-types read through a loader's resources are kept per loader ({@link #BY_LOADER}, weakly
 * keyed; the values hold strings only, so they never keep a loader alive): each rewrite used to read the same
 * application super-types again, and a resource look-up through the application loader first searches every
 * JDK module (the parents' delegation) before the class path. What a rewrite reads is unchanged: the same
 * resource through the same loader, once; a failed read is not kept (it is asked again, as before). The class
 * being rewritten ({@link #seed}) stays in the instance's own map.
 */
final class ClassHierarchy {

    /** A type whose bytes could not be found: the rewrite must not guess. */
    static final class UnknownTypeException extends RuntimeException {
        UnknownTypeException(String type) {
            super("cannot read the class file of " + type.replace('/', '.'));
        }
    }

    /** {@code text}: the answer {@link #learnt()} records for the type, made once per type read, not per question. */
    private record Info(String superName, String[] interfaces, boolean isInterface, String text) {
        Info(String superName, String[] interfaces, boolean isInterface) {
            this(superName, interfaces, isInterface, superName + ";" + String.join(",", interfaces) + ";" + isInterface);
        }
    }

    /** {@code java/} types' super-types, read once per JVM (see the class comment). */
    private static final Map<String, Info> JDK = new ConcurrentHashMap<>();

    /** Non-{@code java/} types' super-types as read through each loader's resources (see the class comment). */
    private static final Map<ClassLoader, Map<String, Info>> BY_LOADER =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    /** The same for the bootstrap loader (read through the platform loader). */
    private static final Map<String, Info> BOOT = new ConcurrentHashMap<>();

    private final ClassLoader loader;
    private final Map<String, Info> cache = new ConcurrentHashMap<>();
    /** This loader's entry of {@link #BY_LOADER} (or {@link #BOOT}). */
    private final Map<String, Info> loaderTypes;
    /** Declared methods ({@code name + descriptor}) by type, read only when a call's resolution needs them. */
    private final Map<String, java.util.Set<String>> methods = new ConcurrentHashMap<>();
    /** The class being rewritten (its methods are read from it, when asked). */
    private volatile ClassReader seeded;
    /**
     * What this rewrite learnt about other types, for {@link RewriteCache}: per type, its super-types (or that it
     * could not be read) and, if asked, its declared methods; null when nobody records.
     */
    private final Map<String, String> learnt;

    ClassHierarchy(ClassLoader loader) {
        this(loader, false);
    }

    /** {@code record}: keep what is learnt about other types ({@link #learnt()}). */
    ClassHierarchy(ClassLoader loader, boolean record) {
        this.loader = loader;
        this.loaderTypes = loader == null ? BOOT : typesOf(loader);
        this.learnt = record ? new java.util.TreeMap<>() : null;
    }

    /**
     * What the rewrite read about types other than the one rewritten, as {@code "i:" + type -> super-types} and
     * {@code "m:" + type -> declared methods}: equal answers for every entry mean the same rewrite. Empty if not
     * recording.
     */
    Map<String, String> learnt() {
        if (learnt == null) {
            return Map.of();
        }
        synchronized (learnt) {
            return new java.util.TreeMap<>(learnt);
        }
    }

    /** What this hierarchy answers now for a key of {@link #learnt()}, in the same form; for a cache hit's check. */
    String answer(String key) {
        String type = key.substring(2);
        try {
            if (key.startsWith("m:")) {
                return methodsText(declaredMethods(type));
            }
            return infoText(info(type));
        } catch (UnknownTypeException | IllegalArgumentException e) {
            return ABSENT;
        }
    }

    private static final String ABSENT = "absent";

    private static String infoText(Info info) {
        return info.text();
    }

    private static String methodsText(java.util.Set<String> declared) {
        return String.join(",", new java.util.TreeSet<>(declared));
    }

    private void learn(String key, String answer) {
        if (learnt != null) {
            synchronized (learnt) {
                learnt.putIfAbsent(key, answer);
            }
        }
    }

    private boolean isSeed(String type) {
        ClassReader own = seeded;
        return own != null && own.getClassName().equals(type);
    }

    /**
     * Records the class being rewritten from its own bytes: they are authoritative, and a class defined
     * from bytes may have no resource to read.
     */
    void seed(ClassReader reader) {
        cache.put(reader.getClassName(), new Info(reader.getSuperName(), reader.getInterfaces(),
                (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0));
        seeded = reader;
    }

    /**
     * Whether a static call {@code owner.name descriptor} resolves to the method {@code declarer} declares:
     * {@code owner} is {@code declarer} or a subclass, and no class in between declares (hides) a method of
     * that name and descriptor. The JVM resolves a static call exactly so.
     *
     * @throws UnknownTypeException if a class on the way cannot be read
     */
    boolean resolvesTo(String owner, String name, String descriptor, String declarer) {
        for (String t = owner; t != null; t = info(t).superName()) {
            if (t.equals(declarer)) {
                return true;
            }
            java.util.Set<String> declared = declaredMethods(t);
            if (learnt != null && !isSeed(t)) {
                learn("m:" + t, methodsText(declared));
            }
            if (declared.contains(name + descriptor)) {
                return false;
            }
        }
        return false;
    }

    /**
     * Whether {@code type} is a subclass of {@code ancestor} (or {@code ancestor} itself).
     *
     * @throws UnknownTypeException if a class on the way cannot be read
     */
    boolean extendsClass(String type, String ancestor) {
        for (String t = type; t != null; t = info(t).superName()) {
            if (t.equals(ancestor)) {
                return true;
            }
        }
        return false;
    }

    /** The most specific common superclass, as {@code ClassWriter.getCommonSuperClass} needs. */
    String commonSuperClass(String a, String b) {
        if (a.equals(b)) {
            return a;
        }
        Info infoA = info(a);
        Info infoB = info(b);
        if (infoA.isInterface() || infoB.isInterface()) {
            return "java/lang/Object";
        }
        List<String> chainA = superChain(a);
        for (String candidate : superChain(b)) {
            if (chainA.contains(candidate)) {
                return candidate;
            }
        }
        return "java/lang/Object";
    }

    /** Whether {@code type} is, or inherits from, {@code ancestor} (class or interface). */
    boolean isSubtypeOf(String type, String ancestor) {
        if (type.equals(ancestor)) {
            return true;
        }
        Info info;
        try {
            info = info(type);
        } catch (UnknownTypeException e) {
            return false;
        }
        if (info.superName() != null && isSubtypeOf(info.superName(), ancestor)) {
            return true;
        }
        for (String i : info.interfaces()) {
            if (isSubtypeOf(i, ancestor)) {
                return true;
            }
        }
        return false;
    }

    private List<String> superChain(String type) {
        List<String> chain = new ArrayList<>();
        for (String t = type; t != null; t = info(t).superName()) {
            chain.add(t);
        }
        return chain;
    }

    private Info info(String type) {
        Info known = cache.get(type);
        if (known != null) {
            return known;
        }
        if (type.startsWith("[")) {
            return new Info("java/lang/Object", new String[0], false);
        }
        Map<String, Info> shared = type.startsWith("java/") ? JDK : loaderTypes;
        Info read = shared.get(type);
        if (read == null) {
            try {
                read = read(type);
            } catch (UnknownTypeException e) {
                if (learnt != null) {
                    learn("i:" + type, ABSENT); // an answer too: isSubtypeOf takes it as "no"
                }
                throw e;
            }
            shared.put(type, read);
        }
        cache.put(type, read);
        if (learnt != null) {
            learn("i:" + type, infoText(read));
        }
        return read;
    }

    /**
     * The per-loader map of {@link #BY_LOADER}, made on first use. No lambdas on this path (here and in
     * {@link #declaredMethods(String)}): each is a class spun while the first classes load (issue 16).
     */
    private static Map<String, Info> typesOf(ClassLoader loader) {
        synchronized (BY_LOADER) {
            Map<String, Info> types = BY_LOADER.get(loader);
            if (types == null) {
                types = new ConcurrentHashMap<>();
                BY_LOADER.put(loader, types);
            }
            return types;
        }
    }

    /** {@code type}'s declared methods, read once per rewrite (as {@code computeIfAbsent} did). */
    private java.util.Set<String> declaredMethods(String type) {
        java.util.Set<String> known = methods.get(type);
        if (known == null) {
            known = readMethods(type);
            java.util.Set<String> raced = methods.putIfAbsent(type, known);
            if (raced != null) {
                known = raced;
            }
        }
        return known;
    }

    private java.util.Set<String> readMethods(String type) {
        ClassReader own = seeded;
        return declaredMethods(own != null && own.getClassName().equals(type) ? own : new ClassReader(bytes(type)));
    }

    private static java.util.Set<String> declaredMethods(ClassReader reader) {
        java.util.Set<String> found = new java.util.HashSet<>();
        reader.accept(new org.objectweb.asm.ClassVisitor(Opcodes.ASM9) {
            @Override
            public org.objectweb.asm.MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                found.add(name + descriptor);
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return found;
    }

    private byte[] bytes(String type) {
        String resource = type + ".class";
        ClassLoader source = loader != null ? loader : ClassLoader.getPlatformClassLoader();
        try (InputStream in = source.getResourceAsStream(resource)) {
            InputStream bytes = in != null ? in : ClassLoader.getSystemResourceAsStream(resource);
            if (bytes == null) {
                throw new UnknownTypeException(type);
            }
            try (bytes) {
                return bytes.readAllBytes();
            }
        } catch (IOException e) {
            throw new UnknownTypeException(type);
        }
    }

    private Info read(String type) {
        ClassReader reader = new ClassReader(bytes(type));
        return new Info(reader.getSuperName(), reader.getInterfaces(), (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0);
    }
}
