import { SetMetadata } from '@nestjs/common';
import type { JobHandler, JobName, JobOf } from './queue.types.js';

export const JOB_HANDLER_METADATA = 'integrations:job-handler';

/** `true` only when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * Marks the method that runs a job. The method receives the job's payload (`JobOf<name>`) and
 * its `JobContext`; it must declare exactly that payload type (or take no parameter), or the
 * decorator does not compile. A thrown error fails the attempt. Handlers are plain provider methods: only the
 * worker role runs them.
 */
export function OnJob<N extends JobName>(name: N) {
  return <M extends JobHandler<N>>(
    target: object,
    key: string | symbol,
    descriptor: Parameters<M> extends [] ? TypedPropertyDescriptor<M> : Same<Parameters<M>[0], JobOf<N>> extends true ? TypedPropertyDescriptor<M> : { payloadMustBe: JobOf<N> },
  ): void => {
    SetMetadata(JOB_HANDLER_METADATA, name)(target, key, descriptor as PropertyDescriptor);
  };
}
