import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../route-access/require-scopes.decorator.js';
import { Metrics } from './metrics.service.js';

/**
 * `GET /metrics` on the API port, for Prometheus; mounted only when `METRICS_PORT` is unset
 * (then the metrics server serves them instead). Outside the API contract, so outside the
 * OpenAPI document, like the health probes.
 */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(@Inject(Metrics) private readonly metrics: Metrics) {}

  @Get('metrics')
  @Public()
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
