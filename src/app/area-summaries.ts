import type { AreaSummary } from '../platform/resources/read-resource.js';
import { documentsSummary } from '../documents/documents.summary.js';
import { financeSummary } from '../finance/finance.summary.js';
import { fleetSummary } from '../fleet/fleet.summary.js';
import { hrSummary } from '../hr/hr.summary.js';
import { supportSummary } from '../support/support.summary.js';

/**
 * One `summarise_<area>` tool per area, for the agent-tool server only. Apart from the resource
 * registry because their zod output schemas are the only reason the API role would load zod.
 */
export const AREA_SUMMARIES: readonly AreaSummary[] = [financeSummary, fleetSummary, hrSummary, supportSummary, documentsSummary];
