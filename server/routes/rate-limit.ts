/**
 * The options of @fastify/rate-limit for the public doors (the widget's, the team stream): a
 * refusal is 429 RATE_LIMITED in the envelope with Retry-After. With Redis the counts are shared
 * by the instances (an address gets the limit, not the limit times the instances); should Redis
 * not answer (down, or no reply within a third of REALTIME_LEASE_MS, at most 1 s), the request
 * goes through rather than fail or wait.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { RedisHub } from '../realtime/redis-hub.js';

export function rateLimitOptions(app: FastifyInstance, nameSpace: string) {
  return {
    global: false,
    ...(app.config.redisUrl && {
      redis: (app.realtime.hub as RedisHub).limitsConnection,
      nameSpace,
      skipOnError: true,
    }),
    errorResponseBuilder: (_request: FastifyRequest, context: { max: number; after: string; ttl: number }) =>
      new AppError('RATE_LIMITED', `Too many requests: at most ${context.max} per ${context.after}`, {
        hint: `Try again in ${context.after}`,
        headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
      }),
  };
}

/** Connections (sockets, streams) opened per minute from one address. */
export const connectsPerMinute = (app: FastifyInstance) => ({
  max: app.config.realtime.connectsPerMinute,
  timeWindow: '1 minute',
});
