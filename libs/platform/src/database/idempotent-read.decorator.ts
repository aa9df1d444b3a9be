import { CustomDecorator, SetMetadata } from '@nestjs/common';

export const IDEMPOTENT_READ = 'database:idempotent-read';

/**
 * Marks a non-GET route that only reads (e.g. a search sent as POST for its body), so that, like
 * every GET, it is run once more when the database drops the connection mid-request.
 */
export const IdempotentRead = (): CustomDecorator => SetMetadata(IDEMPOTENT_READ, true);
