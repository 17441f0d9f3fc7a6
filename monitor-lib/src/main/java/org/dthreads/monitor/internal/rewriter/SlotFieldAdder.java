package org.dthreads.monitor.internal.rewriter;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Adds the monitor slot ({@code org.dthreads.monitor.internal.MonitorSlots}) to a class the rewriter rewrites:
 * {@code private transient synthetic Object $dthreads$monitor}, after the class's own fields. The runtime keeps
 * the object's emulated monitor there instead of in its side table, so the monitor dies with the object.
 *
 * <h2>Which classes</h2>
 * Every class {@link MonitorRewriter} rewrites (it has monitor code: its own objects are the likely locks),
 * except:
 * <ul>
 *   <li>interfaces and annotations (no instance fields), module-info;</li>
 *   <li>enums (a handful of constants per class: the table costs nothing there) and records (their fields are
 *       their components; an extra one is legal for the JVM but not what reflection on a record expects);</li>
 *   <li>a class whose instances stay native (a {@code synchronized native} method: no marker);</li>
 *   <li>a class that already declares a field of that name;</li>
 *   <li>all of them if {@code -Ddthreads.monitor.slots=false} (on by default: see {@code MonitorSlots}).</li>
 * </ul>
 * Classes with nothing to rewrite but the marker ({@link MarkerOnly}) get no slot: the marker is spliced in
 * without parsing, and most of an application's objects are never locked. The rewriter sees one class at a
 * time, so a subclass may get a slot although a superclass has one too: the runtime uses the topmost one
 * and the other stays null (4 bytes per object, often inside the object's alignment padding).
 *
 * <h2>What it does not change</h2>
 * <ul>
 *   <li>Serialization: {@code private transient} fields are neither in the default {@code serialVersionUID}
 *       hash (its field list leaves out private static and private transient fields) nor written to the
 *       stream; with an explicit {@code serialPersistentFields} only the listed fields are written. This
 *       visitor runs after {@code SerialVersionUIDAdder}, which therefore never sees it.</li>
 *   <li>{@code equals}/{@code hashCode}: no method is added or changed.</li>
 *   <li>Reflection-based libraries: the field is transient and synthetic, which Gson and Jackson skip by
 *       default (and private, without accessors, so no bean property).</li>
 *   <li>A copied object ({@code clone}, libraries copying every field) carries the original's monitor in
 *       its copy of the slot; the runtime recognises it as another object's and installs a fresh one.</li>
 * </ul>
 */
final class SlotFieldAdder extends ClassVisitor {
    /** The field's name; the runtime's {@code MonitorSlots.FIELD_NAME}. */
    static final String NAME = "$dthreads$monitor";
    static final String DESCRIPTOR = "Ljava/lang/Object;";
    static final int ACCESS = Opcodes.ACC_PRIVATE | Opcodes.ACC_TRANSIENT | Opcodes.ACC_SYNTHETIC;
    static final boolean ENABLED = enabled();

    private boolean add;

    /** @param enabled false for a class whose instances stay native */
    SlotFieldAdder(ClassVisitor next, boolean enabled) {
        super(Opcodes.ASM9, next);
        this.add = enabled && ENABLED;
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
        if ((access & (Opcodes.ACC_INTERFACE | Opcodes.ACC_ANNOTATION | Opcodes.ACC_ENUM | Opcodes.ACC_MODULE)) != 0
                || "java/lang/Record".equals(superName) || superName == null) {
            add = false;
        }
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
        if (name.equals(NAME)) {
            add = false;
        }
        return super.visitField(access, name, descriptor, signature, value);
    }

    @Override
    public void visitEnd() {
        if (add) {
            FieldVisitor fv = super.visitField(ACCESS, NAME, DESCRIPTOR, null, null);
            if (fv != null) {
                fv.visitEnd();
            }
        }
        super.visitEnd();
    }

    private static boolean enabled() {
        try {
            return !"false".equalsIgnoreCase(System.getProperty("dthreads.monitor.slots"));
        } catch (SecurityException e) {
            return true;
        }
    }
}
