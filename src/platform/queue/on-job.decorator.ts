import { SetMetadata } from '@nestjs/common';
import type { JobName } from './queue.types.js';

export const JOB_HANDLER_METADATA = 'integrations:job-handler';

/**
 * Marks the method that runs a job. It receives the job's payload (`JobOf<name>`); a thrown
 * error fails the attempt. Handlers are plain provider methods: only the worker role runs them.
 */
export function OnJob(name: JobName): MethodDecorator {
  return SetMetadata(JOB_HANDLER_METADATA, name);
}
