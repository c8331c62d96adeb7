/* Linked with -static: pmcprof record must refuse it. */
int main(void)
{
	return 0;
}
