/** The dthreads Maven plugin: the {@code instrument} goal. */
package org.dthreads.maven;
