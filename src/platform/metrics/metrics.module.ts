import { Global, Module } from '@nestjs/common';
import { Metrics } from './metrics.service.js';

/**
 * Prometheus metrics of every role. Exposed by `MetricsController` on the API port when
 * METRICS_PORT is unset, else by run-roles.ts's `serveMetrics` on that port.
 */
@Global()
@Module({
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
