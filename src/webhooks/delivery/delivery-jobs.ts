import type { JobQueue } from '../../platform/queue/job-queue.service.js';
import { JobName } from '../../platform/queue/queue.types.js';

/**
 * Queues the attempt job of each delivery under the delivery's id, so queueing one again (the
 * relay, a sweep, a replay racing a sweep) leaves the job already there as it is.
 */
export async function queueDeliveryAttempts(jobs: JobQueue, deliveries: readonly { id: string; tenantId: string }[]): Promise<void> {
  await jobs.queueMany(
    JobName.WebhookDeliveryAttempt,
    deliveries.map((delivery) => ({ data: { tenantId: delivery.tenantId, deliveryId: delivery.id }, jobId: delivery.id })),
  );
}
