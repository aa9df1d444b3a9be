// A jest environment that holds back what Nest's logger prints during a test and shows it only when
// that test fails (TEST_LOGS=1 shows everything as it happens). Expected warnings and error stacks
// from tests of failure paths would otherwise bury the report.
const NodeEnvironment = require('jest-environment-node').TestEnvironment;

class QuietEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__heldLogs = [];
  }

  handleTestEvent(event) {
    if (event.name === 'test_start') this.global.__heldLogs.length = 0;
    if (event.name === 'test_done' && event.test.errors.length && this.global.__heldLogs.length) {
      const name = [];
      for (let block = event.test; block && block.name !== 'ROOT_DESCRIBE_BLOCK'; block = block.parent)
        name.unshift(block.name);
      process.stderr.write(
        `\n--- logs of the failed test "${name.join(' > ')}" ---\n${this.global.__heldLogs.join('\n')}\n`,
      );
    }
  }
}

module.exports = QuietEnvironment;
