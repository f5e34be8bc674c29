import { Inject, Injectable, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_DATA_SCHEMAS, type JsonSchema } from '../catalog/event-data-schemas.js';
import { type EventData, EventCatalog, type EventDefinition, type EventType } from '../catalog/event-types.js';
import { quietNestApplication } from '../logging/nest-logger.js';
import { exampleFor } from '../openapi/openapi-examples.js';

/** The response DTOs whose OpenAPI schemas event data may follow: the registry's item DTOs. */
export const EVENT_DATA_MODELS = Symbol('EVENT_DATA_MODELS');

/** The id under which the components are one schema. */
const COMPONENTS_ID = 'urn:integrations-api:event-data';

@Module({})
class NoRoutes {}

/**
 * Event data checked against its type's JSON schema, the one the catalogue publishes (spec
 * section 6): a DTO's OpenAPI component or an EVENT_DATA_SCHEMAS entry. The DTOs' schemas are
 * the ones @nestjs/swagger writes from their decorators, made once per process on first use
 * (an application in preview mode, which runs no provider); each type's validator is compiled
 * once, on its first event.
 */
@Injectable()
export class EventDataCheck {
  private components: Promise<Record<string, JsonSchema>> | undefined;
  private readonly ajv = addFormats.default(new Ajv({ allErrors: false, strict: true, keywords: ['example', 'components'] }));
  private readonly validators = new Map<EventType, ValidateFunction>();

  constructor(@Inject(EVENT_DATA_MODELS) private readonly models: readonly Type[]) {}

  /** The first way `data` breaks the schema of `type`, as `data/member must …`; null when it matches. */
  async fault(type: EventType, data: unknown): Promise<string | null> {
    const validate = await this.validator(type);
    if (validate(data)) return null;
    const [error] = validate.errors ?? [];
    return error ? `data${error.instancePath} ${error.message}` : 'data does not match';
  }

  /**
   * Data that matches the schema of `type`, built from the schema's examples, in the state the
   * type names (the catalogue entry's `example`).
   */
  async example<T extends EventType>(type: T): Promise<EventData<T>> {
    const components = await this.schemas();
    const definition: EventDefinition = EventCatalog[type];
    return { ...(exampleFor(definition.dataSchema, components) as object), ...definition.example } as EventData<T>;
  }

  private async validator(type: EventType): Promise<ValidateFunction> {
    await this.schemas();
    let validate = this.validators.get(type);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${COMPONENTS_ID}${EventCatalog[type].dataSchema.$ref as string}` });
      this.validators.set(type, validate);
    }
    return validate;
  }

  /** The components, made once and registered with ajv as one schema, so `$ref`s between them resolve. */
  private schemas(): Promise<Record<string, JsonSchema>> {
    this.components ??= (async () => {
      const app = await quietNestApplication((logger) => NestFactory.create(NoRoutes, { preview: true, logger, abortOnError: false }));
      try {
        const document = SwaggerModule.createDocument(app, new DocumentBuilder().build(), { extraModels: [...this.models] });
        const schemas = { ...(document.components?.schemas as Record<string, JsonSchema>), ...EVENT_DATA_SCHEMAS };
        this.ajv.addSchema({ $id: COMPONENTS_ID, components: { schemas } });
        return schemas;
      } finally {
        await app.close();
      }
    })();
    return this.components;
  }
}
