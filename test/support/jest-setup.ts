import { Logger } from '@nestjs/common';

jest.setTimeout(120_000);
// Library loggers outside an app would print every info line; TEST_LOGS=1 shows them.
if (process.env.TEST_LOGS !== '1') Logger.overrideLogger(['error']);
