import { Scope } from '../../../src/platform/catalog/scopes.js';
import { readResource } from '../../../src/platform/resources/read-resource.js';
import { timestamp } from '../../../src/platform/resources/representation.js';
import { Widget, WidgetDto } from './widget.js';

/** File 2: the declaration. File 3 is its line in a feature's manifest (`resources`); file 5 the test. */
export const widgetsResource = readResource({
  name: 'widgets',
  area: 'support',
  entity: Widget,
  item: WidgetDto,
  scope: Scope.SupportTicketsRead,
  tag: 'Widgets',
  singular: 'widget',
  article: 'a',
  description: 'A widget: a label.',
  searchable: ['label'],
  toResource: (widget: Widget): WidgetDto => ({
    id: widget.id,
    label: widget.label,
    created_at: timestamp(widget.createdAt),
    updated_at: timestamp(widget.updatedAt),
  }),
});
