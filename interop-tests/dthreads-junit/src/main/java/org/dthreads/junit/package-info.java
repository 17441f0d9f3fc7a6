/**
 * A JUnit 5 kit that starts real multi-JVM sites and asserts zigzag scenarios complete, or deadlock.
 */
package org.dthreads.junit;
