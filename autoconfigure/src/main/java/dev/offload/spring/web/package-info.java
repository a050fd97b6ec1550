/**
 * Web support: the tenant of a request's sessions.
 */
@NullMarked
package dev.offload.spring.web;

import org.jspecify.annotations.NullMarked;
