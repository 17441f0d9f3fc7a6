package org.dthreads.benchmarks.paper.table2;

import java.util.function.LongSupplier;
import org.mozilla.javascript.Context;
import org.mozilla.javascript.Script;
import org.mozilla.javascript.Scriptable;

/**
 * Table 2's Rhino workload: a JavaScript program run by Rhino's interpreter (optimization level -1,
 * so all executed code is Rhino's own: no classes generated at run time). Recursive calls, object
 * allocation and prototype method calls, strings and regular expressions, sorting with a comparator,
 * JSON. Loaded by each build's class loader; the value is a checksum, the same for every build.
 */
public final class RhinoWorkload implements LongSupplier {

    static final String SCRIPT = String.join("\n",
            "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }",
            "function Point(x, y) { this.x = x; this.y = y; }",
            "Point.prototype.add = function (o) { return new Point(this.x + o.x, this.y + o.y); };",
            "function points(n) { var p = new Point(0, 0); for (var i = 0; i < n; i++) { p = p.add(new Point(i, i * 2)); } return p.x + p.y; }",
            "function strings(n) {",
            "  var s = []; for (var i = 0; i < n; i++) { s.push('k' + i + ':' + (i * 7 % 13)); }",
            "  return s.join(',').split(',').map(function (t) { return t.replace(/k(\\d+):/, '$1=').length; })",
            "          .reduce(function (a, b) { return a + b; }, 0);",
            "}",
            "function sorting(n) {",
            "  var a = [], seed = 42;",
            "  for (var i = 0; i < n; i++) { seed = (seed * 16807) % 2147483647; a.push(seed % 100000); }",
            "  a.sort(function (x, y) { return x - y; });",
            "  return a[0] + a[n >> 1] + a[n - 1];",
            "}",
            "function json(n) {",
            "  var o = []; for (var i = 0; i < n; i++) { o.push({id: i, name: 'n' + i, tags: ['a', 'b', i % 3]}); }",
            "  var back = JSON.parse(JSON.stringify(o)), t = 0;",
            "  for (var j = 0; j < back.length; j++) { t += back[j].id + back[j].tags.length + back[j].name.length; }",
            "  return t;",
            "}",
            "fib(18) + points(2000) + strings(2000) + sorting(2000) + json(500);");

    private final Script script;
    private final Scriptable scope;

    public RhinoWorkload() {
        Context cx = Context.enter();
        try {
            cx.setOptimizationLevel(-1);
            cx.setApplicationClassLoader(RhinoWorkload.class.getClassLoader());
            scope = cx.initStandardObjects();
            script = cx.compileString(SCRIPT, "table2.js", 1, null);
        } finally {
            Context.exit();
        }
    }

    @Override
    public long getAsLong() {
        Context cx = Context.enter();
        try {
            cx.setOptimizationLevel(-1);
            Object result = script.exec(cx, scope);
            return (long) Context.toNumber(result);
        } finally {
            Context.exit();
        }
    }
}
