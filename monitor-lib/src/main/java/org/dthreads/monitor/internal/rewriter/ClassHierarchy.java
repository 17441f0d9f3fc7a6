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
 * <p>Thread-safe; one instance per defining loader and rewrite (cheap to create).
 */
final class ClassHierarchy {

    /** A type whose bytes could not be found: the rewrite must not guess. */
    static final class UnknownTypeException extends RuntimeException {
        UnknownTypeException(String type) {
            super("cannot read the class file of " + type.replace('/', '.'));
        }
    }

    private record Info(String superName, String[] interfaces, boolean isInterface) {}

    private final ClassLoader loader;
    private final Map<String, Info> cache = new ConcurrentHashMap<>();

    ClassHierarchy(ClassLoader loader) {
        this.loader = loader;
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
        Info read = read(type);
        cache.put(type, read);
        return read;
    }

    private Info read(String type) {
        String resource = type + ".class";
        ClassLoader source = loader != null ? loader : ClassLoader.getPlatformClassLoader();
        try (InputStream in = source.getResourceAsStream(resource)) {
            InputStream bytes = in != null ? in : ClassLoader.getSystemResourceAsStream(resource);
            if (bytes == null) {
                throw new UnknownTypeException(type);
            }
            try (bytes) {
                ClassReader reader = new ClassReader(bytes.readAllBytes());
                return new Info(reader.getSuperName(), reader.getInterfaces(),
                        (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0);
            }
        } catch (IOException e) {
            throw new UnknownTypeException(type);
        }
    }
}
