/** The instrument goal's helpers; not an API. */
package org.dthreads.maven.internal;
