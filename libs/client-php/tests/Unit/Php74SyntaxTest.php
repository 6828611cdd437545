<?php

namespace Licensing\Tests\Unit;

use Licensing\Tests\Support\Php74Syntax;
use PHPUnit\Framework\TestCase;

/**
 * The library runs on PHP 7.4 to 8.3 (composer.json): nothing in src/ may use what PHP 8 added.
 * The tests run on PHP 8, so the check reads the tokens; each construct it refuses is shown
 * refused, and code PHP 7.4 runs is shown passing.
 */
final class Php74SyntaxTest extends TestCase
{
    /** @return array<string, array{0: string, 1: string}> */
    public function php8(): array
    {
        return [
            'match' => ['$a = match ($b) { 1 => 2, default => 3 };', 'match'],
            'readonly' => ['class A { public readonly int $a; }', 'readonly'],
            'enum' => ['enum Suit { case Hearts; }', 'enum'],
            'nullsafe' => ['$a = $b?->c;', 'nullsafe'],
            'attribute' => ['#[Pure] function a(): int { return 1; }', 'attribute'],
            'promotion' => ['class A { public function __construct(private int $a) {} }', 'constructor promotion'],
            'union parameter' => ['function a(int|string $a): void {}', 'union'],
            'union return' => ['function a(): int|string { return 1; }', 'union'],
            'mixed' => ['function a(mixed $a): void {}', 'mixed'],
            'mixed return' => ['function a(): mixed { return 1; }', 'mixed'],
            'never' => ['function a(): never { exit; }', 'never'],
            'static return' => ['class A { public function a(): static { return $this; } }', 'static'],
            'named argument' => ['a(timeout: 5);', 'named argument'],
            'new in a default' => ['function a($b = new B()) {}', 'new in a default'],
            'first-class callable' => ['$a = strlen(...);', 'first-class callable'],
            'catch without a variable' => ['try { a(); } catch (\Exception) { b(); }', 'catch without a variable'],
            'object::class' => ['$a = $b::class;', '$object::class'],
            'trailing comma' => ['function a($b, $c,) {}', 'trailing comma'],
            'trailing comma in use' => ['$a = function () use ($b, $c,) {};', 'trailing comma'],
            'throw expression' => ['$a = $b ?? throw new \Exception();', 'throw as an expression'],
            'str_contains' => ['$a = str_contains($b, "c");', 'str_contains'],
            'str_starts_with' => ['$a = \str_starts_with($b, "c");', 'str_starts_with'],
            'str_ends_with' => ['$a = str_ends_with($b, "c");', 'str_ends_with'],
            'array_is_list' => ['$a = array_is_list($b);', 'array_is_list'],
            'get_debug_type' => ['$a = get_debug_type($b);', 'get_debug_type'],
            'ValueError' => ['try { a(); } catch (\ValueError $e) {}', 'ValueError'],
            'Stringable' => ['class A implements \Stringable {}', 'Stringable'],
        ];
    }

    /** @dataProvider php8 */
    public function testWhatPhp8AddedIsRefused(string $code, string $named): void
    {
        $problems = Php74Syntax::problems("<?php\n" . $code . "\n");
        $this->assertNotEmpty($problems, 'Not refused: ' . $code);
        $this->assertStringContainsString($named, implode("\n", $problems));
    }

    public function testCodeThatPhp74RunsPasses(): void
    {
        $code = <<<'PHP'
<?php
namespace A;
use function strlen;
use Licensing\LicensingException;
final class B extends \RuntimeException implements \JsonSerializable
{
    private const X = 1 | 2;
    public ?int $typed = null;
    public function __construct(int $a = self::X, array $b = [], ?string ...$rest)
    {
        parent::__construct('x');
        $this->typed ??= $a;
        $f = fn(int $x): int => $x * 2;
        $g = function (&$x, $y = null) use ($a): ?self { return $a ? $this : null; };
        switch ($a) {
            case self::X:
                throw new LicensingException('A', 'b');
            default:
                $c = strlen($a ? 'x' : 'y') + ($b ? 1 : 2);
        }
        $d = self::class . B::class . static::class;
        $e = 1_000;
    }
    public function &byReference(): array { return $this->b; }
    public function jsonSerialize(): array { return []; }
    public static function make(): self { return new self(); }
}
PHP;
        $this->assertSame([], Php74Syntax::problems($code));
    }

    public function testNothingInSrcNeedsPhp8(): void
    {
        $src = dirname(__DIR__, 2) . '/src';
        $files = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($src, \FilesystemIterator::SKIP_DOTS));
        $problems = [];
        $count = 0;
        foreach ($files as $file) {
            if ($file->getExtension() !== 'php') {
                continue;
            }
            $count++;
            foreach (Php74Syntax::problems((string) file_get_contents($file->getPathname())) as $problem) {
                $problems[] = substr($file->getPathname(), strlen($src) + 1) . ' ' . $problem;
            }
        }
        $this->assertGreaterThan(20, $count);
        $this->assertSame([], $problems, "PHP 8 in src/:\n" . implode("\n", $problems));
    }
}
