package org.dthreads.monitor.internal.rewriter;

import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.JSRInlinerAdapter;
import org.objectweb.asm.commons.SerialVersionUIDAdder;
import org.objectweb.asm.tree.MethodNode;

/**
 * Rewrites one class file so that its monitor operations go to {@link org.dthreads.monitor.Monitors}.
 * The chain, one visitor per concern:
 * <ol>
 *   <li>{@link SerialVersionUIDAdder} (only for a {@code Serializable} class without an explicit
 *       {@code serialVersionUID} that has {@code synchronized} methods): pins the default UID
 *       computed from the <em>original</em> bytes, since removing {@code ACC_SYNCHRONIZED} changes
 *       it, so rewritten and plain JVMs keep exchanging objects;</li>
 *   <li>{@link SlotFieldAdder}: adds the monitor slot field (after the UID is computed, which
 *       leaves it out anyway: it is private and transient);</li>
 *   <li>{@link Marker}: adds {@code @org.dthreads.monitor.Rewritten} (how the runtime knows the
 *       class's instances may be emulated) and refuses a class that already has it. Not on a class
 *       with a {@code synchronized native} method: that method takes the JVM's monitor (it stays
 *       native, flag kept), so the class's instances and {@code Class} object must stay native for
 *       its other, rewritten, methods to exclude it;</li>
 *   <li>per method, in tree form: {@link JSRInlinerAdapter} (class files older than Java 7, where {@code jsr} is legal),
 *       {@link MonitorCallRewriter} (every route to wait/notify/holdsLock/interrupt), then
 *       {@link SynchronizedMethodLowering}, {@link MonitorBlockSplitter}, {@link ExitOverflowGuard}.</li>
 * </ol>
 * Frames: from class file version 51 on (where every method that branches has them) the compiler's frames are
 * kept and the rewritten methods' frames derived from them ({@link FrameHints}); the writer computes max sizes only.
 * Where that is not possible for a method, and for older class files, frames are computed, with super-types read
 * from bytes ({@link ClassHierarchy}), never by loading classes. All or nothing: any problem leaves the class untouched ({@link Result#bytes()} null, with
 * the reason), and its objects then use the JVM's monitors.
 *
 * <p>Thread-safe: no shared mutable state; call concurrently for different classes.
 */
public final class MonitorRewriter {

    /** Descriptor of the marker annotation. */
    public static final String REWRITTEN_DESCRIPTOR = "Lorg/dthreads/monitor/Rewritten;";

    /**
     * The outcome of one class. {@code monitorCalls} counts every route replaced (calls, method handles,
     * reflective call sites); {@code unrewritableSites} lists, as {@code method descriptor line N: what}, the
     * routes to a monitor method that had to be left as they are (for a one-time log).
     */
    public record Result(byte[] bytes, String skipReason, int synchronizedMethods, int synchronizedBlocks,
            int monitorCalls, java.util.List<String> unrewritableSites) {
        public boolean rewritten() {
            return bytes != null;
        }

        public int sites() {
            return synchronizedMethods + synchronizedBlocks + monitorCalls;
        }
    }

    private MonitorRewriter() {}

    /**
     * Rewrites {@code classBytes}; never throws.
     *
     * @param loader the defining loader (super-types are read through its resources); null for the boot loader
     */
    public static Result rewrite(byte[] classBytes, ClassLoader loader) {
        return rewrite(classBytes, loader, MethodSelection.of(classBytes));
    }

    /** {@code selection}: the methods that may change; the others are copied as they are. */
    static Result rewrite(byte[] classBytes, ClassLoader loader, MethodSelection selection) {
        return rewrite(classBytes, loader, selection, true, null);
    }

    /** How the frames of the methods that went through the tree passes were made (for tests). */
    static final class FrameStats {
        /** Methods whose frames were derived ({@link FrameHints}). */
        int derived;
        /** Methods of a class file of version 51 or later whose frames had to be computed, and why. */
        final java.util.List<String> computed = new java.util.ArrayList<>();
        /** Methods of older class files (frames computed for the whole class). */
        int olderClassFile;
    }

    /**
     * {@code deriveFrames} false: frames computed for every rewritten method, as before {@link FrameHints} (tests
     * compare); {@code stats} may be null.
     */
    static Result rewrite(byte[] classBytes, ClassLoader loader, MethodSelection selection, boolean deriveFrames,
            FrameStats stats) {
        return rewrite(classBytes, selection, deriveFrames, stats, new ClassHierarchy(loader));
    }

    /** With the caller's {@code hierarchy} (one per rewrite; {@link RewriteCache} records what it learns). */
    static Result rewrite(byte[] classBytes, MethodSelection selection, boolean deriveFrames, FrameStats stats,
            ClassHierarchy hierarchy) {
        try {
            ClassReader reader = new ClassReader(classBytes);
            if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
                return skipped("module-info");
            }
            Facts facts = new Facts(reader);
            if (facts.marker) {
                return skipped("already rewritten");
            }
            hierarchy.seed(reader);
            // Built from the reader so the original constant pool is kept, in order, and new entries are
            // appended: otherwise entries move past index 255 and every such ldc becomes a 3-byte ldc_w,
            // which grows large methods of classes without a single monitor and changes the JIT's inlining
            // (measured: Rhino's interpreter loop, 1.25x slower with no monitor on its path). It also lets a
            // method the selection leaves alone be copied as it is: its visitor is then the writer's own, and
            // the reader hands it the method's bytes, frames and max sizes included (COMPUTE_FRAMES only applies
            // to the methods visited instruction by instruction).
            boolean derive = deriveFrames && (readVersion(reader) & 0xFFFF) >= Opcodes.V1_7;
            ClassWriter writer = new ClassWriter(reader, derive ? ClassWriter.COMPUTE_MAXS : ClassWriter.COMPUTE_FRAMES) {
                @Override
                protected String getCommonSuperClass(String type1, String type2) {
                    return hierarchy.commonSuperClass(type1, type2);
                }

                @Override
                protected ClassLoader getClassLoader() {
                    throw new IllegalStateException("the rewriter must not load classes");
                }
            };
            int[] counts = new int[3]; // methods, blocks, calls
            java.util.List<String> unrewritable = new java.util.ArrayList<>();
            // A synchronized native method takes the JVM's monitor of this (or of the class): the
            // class's instances and Class object must then stay native, so the other methods'
            // blocks, which dispatch on the mode, take that same monitor. No marker, no emulation.
            MethodRewriting rewriting = new MethodRewriting(new NativeMarkVisitor(writer, hierarchy), writer, selection,
                    counts, unrewritable, readVersion(reader), new MonitorMethods(hierarchy));
            rewriting.frames = derive ? new Frames(hierarchy, stats) : null;
            rewriting.stats = stats;
            Marker marker = new Marker(rewriting, !facts.synchronizedNative);
            ClassVisitor first = new SlotFieldAdder(marker, !facts.synchronizedNative);
            if (needsPinnedSerialVersionUid(reader, facts, hierarchy)) {
                first = new PinnedSerialVersionUid(first);
            }
            reader.accept(first, derive ? ClassReader.EXPAND_FRAMES : ClassReader.SKIP_FRAMES);
            return new Result(writer.toByteArray(), null, counts[0], counts[1], counts[2], java.util.List.copyOf(unrewritable));
        } catch (CannotRewriteException | ClassHierarchy.UnknownTypeException e) {
            return skipped(e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            return skipped(e.toString());
        }
    }

    /** Derived frames for a method, or, where they cannot be derived, computed ones. */
    private record Frames(ClassHierarchy hierarchy, FrameStats stats) {
        MethodNode complete(MethodNode method, FrameHints hints, String owner, int classVersion) {
            String problem = hints.insertFrames(method, owner);
            MethodNode out = method;
            if (problem == null) {
                if (stats != null) {
                    stats.derived++;
                }
            } else {
                if (stats != null) {
                    stats.computed.add(owner + "." + method.name + method.desc + ": " + problem);
                }
                out = FrameComputation.compute(method, owner, classVersion, hierarchy);
            }
            return out;
        }
    }

    /** What the rewriter asks of the class before rewriting it, in one pass without code. */
    private static final class Facts extends ClassVisitor {
        boolean marker;
        boolean synchronizedNative;
        boolean synchronizedMethod; // not native
        boolean explicitSerialVersionUid;

        Facts(ClassReader reader) {
            super(Opcodes.ASM9);
            reader.accept(this, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        }

        @Override
        public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            marker |= REWRITTEN_DESCRIPTOR.equals(descriptor);
            return null;
        }

        @Override
        public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor, String signature,
                Object value) {
            explicitSerialVersionUid |= name.equals("serialVersionUID");
            return null;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            if ((access & Opcodes.ACC_SYNCHRONIZED) != 0) {
                if ((access & Opcodes.ACC_NATIVE) != 0) {
                    synchronizedNative = true;
                } else {
                    synchronizedMethod = true;
                }
            }
            return null;
        }
    }

    private static Result skipped(String reason) {
        return new Result(null, reason, 0, 0, 0, java.util.List.of());
    }

    private static int readVersion(ClassReader reader) {
        return reader.readUnsignedShort(6);
    }

    /** Serializable, no explicit serialVersionUID, not an enum or record, and a synchronized method. */
    private static boolean needsPinnedSerialVersionUid(ClassReader reader, Facts facts, ClassHierarchy hierarchy) {
        if ((reader.getAccess() & (Opcodes.ACC_INTERFACE | Opcodes.ACC_ENUM)) != 0
                || "java/lang/Record".equals(reader.getSuperName())) {
            return false;
        }
        if (facts.explicitSerialVersionUid || !facts.synchronizedMethod) {
            return false;
        }
        String self = reader.getClassName();
        for (String i : reader.getInterfaces()) {
            if (hierarchy.isSubtypeOf(i, "java/io/Serializable")) {
                return true;
            }
        }
        return reader.getSuperName() != null && hierarchy.isSubtypeOf(reader.getSuperName(), "java/io/Serializable")
                && !self.equals("java/lang/Object");
    }

    /**
     * Adds the marker annotation (the caller has checked that the class does not carry it yet), unless
     * disabled (a class with a {@code synchronized native} method).
     */
    private static final class Marker extends ClassVisitor {
        private boolean added;

        Marker(ClassVisitor next, boolean enabled) {
            super(Opcodes.ASM9, next);
            this.added = !enabled;
        }

        private void addMarker() {
            if (!added) {
                added = true;
                AnnotationVisitor av = super.visitAnnotation(REWRITTEN_DESCRIPTOR, true);
                if (av != null) {
                    av.visitEnd();
                }
            }
        }

        // The marker goes after the class's own annotations, before its first member.
        @Override
        public void visitNestMember(String nestMember) {
            addMarker();
            super.visitNestMember(nestMember);
        }

        @Override
        public void visitPermittedSubclass(String permittedSubclass) {
            addMarker();
            super.visitPermittedSubclass(permittedSubclass);
        }

        @Override
        public void visitInnerClass(String name, String outerName, String innerName, int access) {
            addMarker();
            super.visitInnerClass(name, outerName, innerName, access);
        }

        @Override
        public org.objectweb.asm.RecordComponentVisitor visitRecordComponent(String name, String descriptor, String signature) {
            addMarker();
            return super.visitRecordComponent(name, descriptor, signature);
        }

        @Override
        public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor, String signature,
                Object value) {
            addMarker();
            return super.visitField(access, name, descriptor, signature, value);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            addMarker();
            return super.visitMethod(access, name, descriptor, signature, exceptions);
        }

        @Override
        public void visitEnd() {
            addMarker();
            super.visitEnd();
        }
    }

    /**
     * Per method the selection says may change: JSR inlining, lowering of synchronized methods, block splitting,
     * call rewriting; every other method goes straight to the writer ({@code copy}), which copies its bytes.
     */
    private static final class MethodRewriting extends ClassVisitor {
        private final ClassVisitor copy;
        private final MethodSelection selection;
        private int methodIndex;
        private final int[] counts;
        private final java.util.List<String> unrewritable;
        private final int classVersion;
        private final MonitorMethods methods;
        private String owner;
        /** Null: the writer computes every rewritten method's frames. */
        Frames frames;
        FrameStats stats;

        MethodRewriting(ClassVisitor next, ClassVisitor copy, MethodSelection selection, int[] counts,
                java.util.List<String> unrewritable, int classVersion, MonitorMethods methods) {
            super(Opcodes.ASM9, next);
            this.copy = copy;
            this.selection = selection;
            this.counts = counts;
            this.unrewritable = unrewritable;
            this.classVersion = classVersion;
            this.methods = methods;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            owner = name;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            if (!selection.mayChange(methodIndex++)) {
                return copy.visitMethod(access, name, descriptor, signature, exceptions);
            }
            boolean lower = (access & Opcodes.ACC_SYNCHRONIZED) != 0
                    && (access & (Opcodes.ACC_NATIVE | Opcodes.ACC_ABSTRACT)) == 0;
            int newAccess = lower ? access & ~Opcodes.ACC_SYNCHRONIZED : access;
            MethodVisitor out = super.visitMethod(newAccess, name, descriptor, signature, exceptions);
            MethodNode tree = new MethodNode(Opcodes.ASM9, access, name, descriptor, signature, exceptions) {
                @Override
                public void visitEnd() {
                    super.visitEnd();
                    FrameHints hints = frames == null ? null : new FrameHints();
                    counts[2] += MonitorCallRewriter.rewrite(this, methods, unrewritable, hints); // before splitting copies
                    if (lower) {
                        SynchronizedMethodLowering.lower(this, owner, classVersion, hints);
                        counts[0]++;
                    }
                    counts[1] += MonitorBlockSplitter.split(this, hints) - (lower ? 1 : 0);
                    ExitOverflowGuard.guard(this, MonitorBlockSplitter.MONITORS, hints);
                    if (hints == null) {
                        if (stats != null) {
                            stats.olderClassFile++;
                        }
                        accept(out);
                    } else {
                        frames.complete(this, hints, owner, classVersion).accept(out);
                    }
                }
            };
            // jsr/ret are illegal from class file version 51 on, and the adapter builds a second tree of the method
            // (all(): the path before the selection, kept exactly for the tests that compare with it)
            if ((classVersion & 0xFFFF) >= Opcodes.V1_7 && !selection.everyMethod()) {
                return tree;
            }
            return new JSRInlinerAdapter(tree, access, name, descriptor, signature, exceptions);
        }

    }


    /**
     * ASM's default {@code serialVersionUID}, its SHA-1 by {@link Sha1}: {@code MessageDigest} set up the JDK's
     * security providers at the first {@code Serializable} class rewritten (issue 16).
     */
    private static final class PinnedSerialVersionUid extends SerialVersionUIDAdder {
        PinnedSerialVersionUid(ClassVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        protected byte[] computeSHAdigest(byte[] value) {
            return Sha1.digest(value);
        }
    }
}
