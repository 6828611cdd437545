<?php

namespace Licensing\Tests\Unit;

use PHPUnit\Framework\TestCase;

/**
 * A plugin installs the library with Composer from a path repository (README.md, Install), with
 * no registry: `composer install` takes this folder, and Composer's autoloader then loads the
 * client. Run in a child process, so the tests' own loader cannot stand in for Composer's.
 */
final class ComposerInstallTest extends TestCase
{
    /** @var string */
    private $plugin = '';

    protected function tearDown(): void
    {
        if ($this->plugin !== '' && is_dir($this->plugin)) {
            self::command(['rm', '-rf', $this->plugin], sys_get_temp_dir());
        }
    }

    public function testAPluginInstallsTheLibraryFromAPathRepositoryAndLoadsItWithComposersAutoloader(): void
    {
        $composer = self::which('composer');
        if ($composer === null) {
            self::fail('composer is not installed (Debian: apt-get install composer).');
        }
        $this->plugin = sys_get_temp_dir() . '/licensing-plugin-' . bin2hex(random_bytes(6));
        mkdir($this->plugin, 0700);
        $manifest = [
            'name' => 'example/licensed-plugin',
            'repositories' => [
                ['type' => 'path', 'url' => dirname(__DIR__, 2), 'options' => ['symlink' => false]],
                ['packagist.org' => false],
            ],
            'require' => ['licensing/client' => '*'],
            'minimum-stability' => 'dev',
        ];
        file_put_contents($this->plugin . '/composer.json', json_encode($manifest, JSON_UNESCAPED_SLASHES));

        [$status, $output] = self::command(
            [$composer, 'install', '--no-interaction', '--no-progress', '--no-dev'],
            $this->plugin
        );
        self::assertSame(0, $status, $output);
        self::assertFileExists($this->plugin . '/vendor/licensing/client/src/LicensingClient.php');

        $script = 'require "vendor/autoload.php";'
            . '$c = new Licensing\LicensingClient("https://shop.example", 7);'
            . 'echo get_class($c), " ", $c->apiBase();';
        [$status, $output] = self::command([PHP_BINARY, '-r', $script], $this->plugin);
        self::assertSame(0, $status, $output);
        self::assertSame('Licensing\LicensingClient https://shop.example/api/index.php/v1/licensing', $output);
    }

    private static function which(string $command): ?string
    {
        foreach (explode(PATH_SEPARATOR, (string) getenv('PATH')) as $dir) {
            if ($dir !== '' && is_executable($dir . '/' . $command)) {
                return $dir . '/' . $command;
            }
        }
        return null;
    }

    /**
     * @param string[] $command
     * @return array{0: int, 1: string} the exit status and what it printed (both streams)
     */
    private static function command(array $command, string $cwd): array
    {
        // A minute at most: an install that waits for a network would otherwise hang the suite.
        $line = 'timeout 60 ' . implode(' ', array_map('escapeshellarg', $command)) . ' 2>&1';
        $env = ['COMPOSER_HOME' => sys_get_temp_dir() . '/licensing-composer-home', 'COMPOSER_NO_INTERACTION' => '1'];
        $process = proc_open($line, [1 => ['pipe', 'w']], $pipes, $cwd, $env + getenv());
        if (!is_resource($process)) {
            return [-1, 'could not start: ' . $line];
        }
        $output = (string) stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        return [proc_close($process), trim($output)];
    }
}
