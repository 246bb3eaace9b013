// jsfive ships no type declarations; the benchmark uses it through a narrow cast.
declare module 'jsfive';
