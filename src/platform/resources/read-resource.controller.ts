import { Controller, Inject, Param, type Type } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../auth/auth-context.js';
import { type Page, type PageRequest, PageParams } from '../pagination/page.js';
import { UuidPipe } from '../validation/uuid.pipe.js';
import { pluralLabel, type ReadResource } from './read-resource.js';
import { ListRoute, RetrieveRoute } from './read-routes.decorator.js';
import { ResourceReader } from './resource-reader.service.js';

/** `VehiclesController` for `vehicles`: the OpenAPI operation ids keep their names. */
function controllerName(resource: ReadResource): string {
  const pascal = resource.name
    .split('_')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
  return `${pascal}Controller`;
}

/** The REST list and retrieve routes of one declared resource. */
export function readResourceController(resource: ReadResource): Type {
  const plural = pluralLabel(resource);

  @ApiTags(resource.tag)
  @Controller(`v1/${resource.name}`)
  class ReadResourceController {
    constructor(@Inject(ResourceReader) private readonly reader: ResourceReader) {}

    @ListRoute(resource.name, resource.scope, resource.item, `List ${plural}`)
    list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<object>> {
      return this.reader.list(resource, auth.tenantId, page);
    }

    @RetrieveRoute(resource.name, resource.scope, resource.item, `Retrieve ${resource.article} ${resource.singular}`)
    retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<object> {
      return this.reader.get(resource, auth.tenantId, id);
    }
  }
  Object.defineProperty(ReadResourceController, 'name', { value: controllerName(resource) });
  return ReadResourceController;
}
