from nginxgen.cli import console

console()
