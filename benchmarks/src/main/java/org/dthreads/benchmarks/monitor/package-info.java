/**
 * JMH benchmarks of the emulated monitor runtime against the JVM's monitors and {@code ReentrantLock}.
 * Run side by side: {@code java -jar benchmarks/target/benchmarks.jar 'Monitor' -f 1 -wi 3 -i 5 -w 1s -r 1s}
 * (see {@code docs/benchmarks.md}, "Monitor runtime").
 */
package org.dthreads.benchmarks.monitor;
